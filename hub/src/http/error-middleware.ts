import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  AppError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  type ErrorCode,
} from './errors.js';

const statusByCode: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

interface BodyParserError {
  type: string;
  status?: number;
  expose?: boolean;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    'type' in error &&
    typeof error.type === 'string' &&
    'expose' in error
  );
}

/** Errors raised by express.json() before any route sees the request, turned into our typed answers. */
function fromBodyParser(error: BodyParserError): { status: number; code: ErrorCode; message: string } {
  switch (error.type) {
    case 'entity.too.large':
      return { status: 413, code: 'payload_too_large', message: 'request body is larger than 1 MiB' };
    case 'entity.parse.failed':
      return { status: 400, code: 'validation_failed', message: 'request body is not valid JSON' };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: 'request body encoding is not supported',
      };
    default:
      return {
        status: error.status ?? 400,
        code: 'validation_failed',
        message: 'request body could not be read',
      };
  }
}

/** The only place where errors become HTTP answers: `{ error, code, details? }`. */
export function errorMiddleware(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (error instanceof AppError) {
      const status = statusByCode[error.code];
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
    if (isBodyParserError(error)) {
      const { status, code, message } = fromBodyParser(error);
      res.status(status).json({ error: message, code });
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
