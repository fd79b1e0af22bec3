import type { Request } from 'express';
import type { ErrorCode, FieldIssue } from './errors.js';

/** An error answer decided outside the AppError classes. */
export interface ErrorAnswer {
  status: number;
  code: ErrorCode;
  message: string;
  details?: FieldIssue[];
  headers?: Record<string, string>;
}

/** The content codings express.json() undoes with Node 20's zlib; anything else is 415. */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/** An http-errors error (body-parser, raw-body): `expose` marks one whose status is the client's fault. */
interface ExposedHttpError {
  status: number;
  expose: true;
  type?: unknown;
}

function isExposedHttpError(error: unknown): error is ExposedHttpError {
  return (
    typeof error === 'object' &&
    error !== null &&
    'expose' in error &&
    error.expose === true &&
    'status' in error &&
    typeof error.status === 'number'
  );
}

/** A 400 about the request as a whole: `details` has the one issue, at the empty path. */
function invalidRequest(message: string): ErrorAnswer {
  return { status: 400, code: 'validation_failed', message, details: [{ path: '', message }] };
}

/** The router decodes path parameters with decodeURIComponent and marks its URIError with status 400. */
function isPathDecodeError(error: unknown): boolean {
  return error instanceof URIError && 'status' in error && error.status === 400;
}

function hasContentCoding(req: Request): boolean {
  const coding = req.headers['content-encoding'];
  return coding !== undefined && coding.trim().toLowerCase() !== 'identity';
}

/**
 * Errors raised while the request is read, before any route sees it (percent-decoding the path, reading,
 * decompressing and parsing the body), as answers; undefined for anything else.
 */
export function answerForRequestReadError(error: unknown, req: Request): ErrorAnswer | undefined {
  if (isPathDecodeError(error)) return invalidRequest('the path is not valid percent-encoded UTF-8');
  if (!isExposedHttpError(error) || error.status >= 500) return undefined;
  switch (error.type) {
    case 'entity.too.large':
      return { status: 413, code: 'payload_too_large', message: 'request body is larger than 1 MiB' };
    case 'entity.parse.failed':
      return invalidRequest('request body is not valid JSON');
    case 'encoding.unsupported':
      // RFC 9110 15.5.16: 415 covers an unsupported content coding, with Accept-Encoding naming the ones taken.
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: `request body Content-Encoding is not supported; use one of: ${ACCEPTED_ENCODINGS}, identity`,
        headers: { 'Accept-Encoding': ACCEPTED_ENCODINGS },
      };
    case 'charset.unsupported':
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: 'request body charset is not supported',
      };
  }
  // A supported coding whose bytes do not decode (zlib's error, turned into a 400 by body-parser).
  if (hasContentCoding(req))
    return invalidRequest('request body could not be decoded as its Content-Encoding says');
  return invalidRequest('request body could not be read');
}
