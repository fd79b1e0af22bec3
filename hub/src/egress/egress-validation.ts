import { isIP } from 'node:net';
import type { FieldIssue } from '../http/errors.js';
import { deniedError, type EgressPolicy, type EgressTarget } from './egress-policy.js';
import { isLocalhostName } from './own-endpoints.js';

// Create-time checks send nothing and resolve nothing: an address literal is judged as it is, a name only
// against the host rules. They catch the plain mistakes with a 400 naming the field; what a name resolves to
// is judged when the connection opens (egress-connector.ts). The one name known without resolving is
// `localhost` (RFC 6761): it is judged as the loopback address it always reaches.

/** Why the policy refuses `host:port` at `path`, or undefined when it does not (yet) refuse it. */
export function egressIssueOfHost(
  policy: EgressPolicy,
  host: string,
  port: number,
  path: string,
): FieldIssue | undefined {
  const bare = host
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  const target: EgressTarget =
    isIP(bare) !== 0
      ? { address: bare, port }
      : isLocalhostName(bare)
        ? { host: bare, address: '127.0.0.1', port }
        : { host: bare, port };
  const verdict = policy.evaluate(target);
  if (verdict.allowed) return undefined;
  return { path, message: deniedError(verdict).message };
}

/** As egressIssueOfHost, for an http(s) URL; a text that is not a URL is left to the validation of its own. */
export function egressIssueOfUrl(policy: EgressPolicy, url: string, path: string): FieldIssue | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  return egressIssueOfHost(policy, parsed.hostname, port, path);
}
