import type { ErrorRequestHandler, RequestHandler } from 'express';
import { hasSqlState, SqlState } from '../db/errors.js';
import { shortReason, unavailableDependencyOf } from '../system/dependency-errors.js';
import {
  AppError,
  MethodNotAllowedError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  UnavailableError,
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
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 403,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
};

/**
 * The HTTP status of an error code; answers written outside Express (client-errors.ts) use it too. The one code
 * with a second status: `quota_exceeded` of the requests-per-second quota is 429 (see errorMiddleware).
 */
export function statusOfCode(code: ErrorCode): number {
  return statusByCode[code];
}

/** What a 503 for an unavailable database or Redis asks clients to wait: a restart or failover takes seconds. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

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
      const retryAfter = error instanceof QuotaExceededError ? error.retryAfterSeconds : undefined;
      const status = retryAfter === undefined ? statusOfCode(error.code) : 429;
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      if (status === 401) {
        res.status(401).json({ statusCode: 401, error: 'Unauthorized', message: error.message });
        return;
      }
      if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof MethodNotAllowedError) res.setHeader('Allow', error.allowed.join(', '));
      if (error instanceof UnavailableError)
        res.setHeader('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
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
    const dependency = unavailableDependencyOf(error);
    if (dependency !== undefined) {
      // A dependency that blinks is a fault of the moment, not a defect: clients are told to come back.
      req.log.warn({ dependency, reason: shortReason(error) }, 'a dependency is unavailable');
      res.setHeader('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
      res.status(503).json({
        error: `the ${dependency} is unavailable; retry later`,
        code: 'unavailable',
        // The reason (addresses, server messages) goes to the log only.
        details: [{ path: dependency, message: 'unavailable' }],
      });
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
