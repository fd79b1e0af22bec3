/**
 * Telling "a dependency is away" from every other failure. An unavailable database or Redis is a fault of the
 * moment: the work is retried and the API answers 503 with Retry-After. Anything else is a defect or a refusal,
 * and is never retried blindly.
 */

export type Dependency = 'database' | 'redis';

/** Thrown where a call gave up on a dependency that did not answer (a bounded wait ran out, a refused connect). */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the ${dependency} is unavailable: ${reason}`, options);
    this.name = new.target.name;
  }
}

// Socket-level failures: the server refused, reset or never answered the connection.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // a Unix socket path that is not there while the server restarts
]);

// SQLSTATEs of a server that is going away or not accepting yet: admin/crash shutdown, cannot connect now,
// too many connections, and class 08 (connection exception). Also 57014, a statement cancelled at its
// statement_timeout (hub/src/db/database.ts): a server too slow to answer within the bound is away for now.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

// node-postgres reports a lost or unusable connection in words only, without a code.
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection ended unexpectedly',
  'Cannot use a pool after calling end on the pool',
  // query_timeout: the server left a query unanswered (paused, or its peer lost); database.ts closes that link.
  'Query read timeout',
];

function codeOf(error: object): unknown {
  return 'code' in error ? error.code : undefined;
}

/** Whether `error` (or what it wraps) says PostgreSQL could not be reached or dropped the connection. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (error instanceof DependencyUnavailableError) return error.dependency === 'database';
  const code = codeOf(error);
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  }
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  if (PG_CONNECTION_MESSAGES.some((words) => message.includes(words))) return true;
  // A connect to every address of a host name failed: Node reports an AggregateError of the attempts.
  if (error instanceof AggregateError) return error.errors.some((e) => isDatabaseUnavailable(e, depth + 1));
  return 'cause' in error && isDatabaseUnavailable(error.cause, depth + 1);
}

/** Whether `error` says Redis could not be reached (ioredis reports its state in words, and socket codes). */
export function isRedisUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (error instanceof DependencyUnavailableError) return error.dependency === 'redis';
  const code = codeOf(error);
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  if (
    /Stream isn't writeable|Connection is closed|Command timed out|Reached the max retries per request|LOADING/.test(
      message,
    )
  )
    return true;
  return 'cause' in error && isRedisUnavailable(error.cause, depth + 1);
}

/** Which dependency `error` says is away, if any. */
export function unavailableDependencyOf(error: unknown): Dependency | undefined {
  if (isDatabaseUnavailable(error)) return 'database';
  if (isRedisUnavailable(error)) return 'redis';
  return undefined;
}

/** A short reason for a log line: the code and the first line of the message, never a stack. */
export function shortReason(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  if (error instanceof AggregateError && error.message === '') return shortReason(error.errors[0]);
  const code = codeOf(error);
  const message =
    'message' in error && typeof error.message === 'string'
      ? (error.message.split('\n')[0] ?? '')
      : error.constructor.name;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * Runs `call`, rejecting with DependencyUnavailableError when it has not settled within `ms`. The call itself
 * is not cancelled; its late outcome is ignored.
 */
export async function withDeadline<T>(
  dependency: Dependency,
  ms: number,
  call: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DependencyUnavailableError(dependency, `no answer within ${ms} ms`)),
      ms,
    );
  });
  const attempt = call();
  attempt.catch(() => undefined);
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
