import type { ErrorRequestHandler, RequestHandler } from 'express';
import { hasSqlState, SqlState } from '../db/errors.js';
import {
  AppError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  type ErrorCode,
} from './errors.js';
import { answerForRequestReadError } from './request-read-errors.js';

const statusByCode: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
};

/** The HTTP status of an error code; answers written outside Express (client-errors.ts) use it too. */
export function statusOfCode(code: ErrorCode): number {
  return statusByCode[code];
}

/** Text PostgreSQL cannot store: a last line of defence behind the check in parseInput. */
function isUnstorableTextError(error: unknown): boolean {
  return (
    hasSqlState(error, SqlState.characterNotInRepertoire) ||
    hasSqlState(error, SqlState.untranslatableCharacter)
  );
}

/** The only place where errors become HTTP answers: `{ error, code, details? }`. */
export function errorMiddleware(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (error instanceof AppError) {
      const status = statusOfCode(error.code);
      if (status === 401) {
        res.status(401).json({ statusCode: 401, error: 'Unauthorized', message: error.message });
        return;
      }
      if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof MethodNotAllowedError) res.setHeader('Allow', error.allowed.join(', '));
      const details = 'details' in error && error.details !== undefined ? { details: error.details } : {};
      res.status(status).json({ error: error.message, code: error.code, ...details });
      return;
    }
    const readError = answerForRequestReadError(error, req);
    if (readError !== undefined) {
      const { status, code, message, details, headers } = readError;
      if (headers) res.set(headers);
      res.status(status).json({ error: message, code, ...(details ? { details } : {}) });
      return;
    }
    if (isUnstorableTextError(error)) {
      req.log.warn({ err: error }, 'text the database cannot store got past request validation');
      const message = 'the request contains text that cannot be stored (NUL or an unpaired surrogate)';
      res.status(400).json({ error: message, code: 'validation_failed', details: [] });
      return;
    }
    req.log.error({ err: error }, 'unhandled error');
    res.status(500).json({ error: 'internal error', code: 'internal' });
  };
}

/** Unknown paths answer 404 in the common error shape. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`no route for ${req.method} ${req.path}`));
};

/** Ends a route chain for methods the path does not serve: 405 with an Allow header. */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req, _res, next) => {
    next(new MethodNotAllowedError(`${req.method} is not allowed on ${req.baseUrl}${req.path}`, allowed));
  };
}
