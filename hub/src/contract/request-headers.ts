import { z } from 'zod';
import { secretOrStringSchema } from './secret-reference.js';

/** An RFC 9110 field name (a token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/**
 * Fields the HTTP client owns: the message framing, the connection and its hop-by-hop fields (RFC 9110 7.6.1),
 * `Expect` (the client does not do 100-continue) and `Host`, because the target is `base`: a different Host would
 * reach one server under another's name, past what the run reports and what egress rules judge by the URL.
 * Lower case; names compare case-insensitively.
 */
const CLIENT_OWNED_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// Field values are visible ASCII, space, HTAB and Latin-1 text (obs-text); CR and LF would split the request
// (header injection), and NUL and the other controls are refused by every HTTP client and server.
const FIELD_VALUE = /^[\t\x20-\x7E\xA0-\xFF]*$/;

/** What is wrong with a header value, in words that never quote it (it may be a resolved secret), or undefined. */
export function headerValueProblem(value: string): string | undefined {
  if (FIELD_VALUE.test(value)) return undefined;
  if (/[\r\n]/.test(value)) return 'contains CR or LF';
  if (/(?!\t)\p{Cc}/u.test(value)) return 'contains a control character other than tab';
  return 'contains a character outside Latin-1';
}

/** `headers` of an HTTP_REQUEST node: literal values are checked here, secret values when they are resolved. */
export const requestHeadersSchema = z
  .record(
    z.string().regex(HEADER_NAME, 'a header name is 1-256 characters of an RFC 9110 token'),
    secretOrStringSchema,
  )
  .superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      if (CLIENT_OWNED_HEADERS.has(name.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} is set by the HTTP client; a monitor may not set it`,
        });
      }
      const problem = typeof value === 'string' ? headerValueProblem(value) : undefined;
      if (problem !== undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: `the value ${problem}` });
    }
  })
  .meta({
    description:
      'headers: optional. Name (an RFC 9110 token) -> value. Values are Latin-1 text without CR, LF or other ' +
      'controls (tab is allowed). Connection, Content-Length, Expect, Host, Keep-Alive, Proxy-Connection, TE, ' +
      'Trailer, Transfer-Encoding and Upgrade are set by the HTTP client and refused.',
  });
