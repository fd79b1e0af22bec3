/** Machine-readable error codes of DESIGN.md; each maps to one HTTP status in error-middleware.ts (one exception there). */
export type ErrorCode =
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'headers_too_large'
  | 'internal'
  | 'unavailable';

/** One failing field: `path` in the dotted/bracketed form a person reads (`nodes[2].method`). */
export interface FieldIssue {
  path: string;
  message: string;
}

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  readonly code = 'validation_failed';
  constructor(
    message: string,
    readonly details: FieldIssue[] = [],
  ) {
    super(message);
  }
}

export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized';
}

export class ForbiddenError extends AppError {
  readonly code = 'forbidden';
}

export class NotFoundError extends AppError {
  readonly code = 'not_found';
}

export class MethodNotAllowedError extends AppError {
  readonly code = 'method_not_allowed';
  constructor(
    message: string,
    readonly allowed: string[],
  ) {
    super(message);
  }
}

export class ConflictError extends AppError {
  readonly code = 'conflict';
  constructor(
    message: string,
    readonly details?: FieldIssue[],
  ) {
    super(message);
  }
}

/** An If-Match that the current resource does not meet (412): nothing was written. */
export class PreconditionFailedError extends AppError {
  readonly code = 'precondition_failed';
  constructor(
    message: string,
    readonly details: FieldIssue[],
  ) {
    super(message);
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'payload_too_large';
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'unsupported_media_type';
}

export class RateLimitedError extends AppError {
  readonly code = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class UnavailableError extends AppError {
  readonly code = 'unavailable';
}

/**
 * Over one of the organization's quotas (docs/adr/0028-quotas-and-bulk-writes.md): nothing was written. A quota of
 * what it owns is 403 (waiting does not help); the requests-per-second quota gives `retryAfterSeconds` and is 429.
 */
export class QuotaExceededError extends AppError {
  readonly code = 'quota_exceeded';
  readonly details: Array<FieldIssue & { quota: string; limit: number }>;
  constructor(
    quota: string,
    limit: number,
    issue: FieldIssue,
    readonly retryAfterSeconds?: number,
  ) {
    super(`quota ${quota} exceeded (limit ${limit}): ${issue.message}`);
    this.details = [{ ...issue, quota, limit }];
  }
}
