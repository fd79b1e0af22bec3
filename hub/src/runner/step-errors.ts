import { errorCode } from '../log/error-facts.js';
import { errors } from 'undici';
import type { ErrorClass } from './run-outcome.js';

/** The reason the run's signal carries when the run timeout elapses. */
export class RunTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the run timed out after ${timeoutMs} ms`);
    this.name = new.target.name;
  }
}

/** The reason the run's signal carries when the caller's signal aborts it (a worker shutting down). */
export class RunCancelledError extends Error {
  constructor(reason: unknown) {
    super(
      reason instanceof Error && reason.message !== ''
        ? `the run was cancelled: ${reason.message}`
        : 'the run was cancelled',
    );
    this.name = new.target.name;
  }
}

/** The class of a run ended by its signal: `timeout` when the run timeout elapsed, else `runner` (a cancel). */
export function errorClassOfRunEnd(reason: unknown): ErrorClass {
  return reason instanceof RunTimeoutError ? 'timeout' : 'runner';
}

/** One request took longer than its `timeout_ms`; `phase` says what it was waiting for. */
export class RequestTimeoutError extends Error {
  constructor(timeoutMs: number, phase: string) {
    super(`timed out after ${timeoutMs} ms ${phase}`);
    this.name = new.target.name;
  }
}

/**
 * A TCP, DNS or gRPC answer the step cannot accept (an `expect` not met, a malformed reply); it carries the class
 * it counts under, since these protocols have no error codes of their own in Node.
 */
export class ProtocolAnswerError extends Error {
  constructor(
    message: string,
    readonly errorClass: ErrorClass,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A response the node's `response_format` cannot take, or one over the body limit. */
export class ResponseBodyError extends Error {
  constructor(
    message: string,
    /** How many body bytes were read before giving up. */
    readonly bytes: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A redirect the runner does not follow: one past MAX_REDIRECTS, or to a location that is not an http(s) URL. */
export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
// OpenSSL's certificate verdicts (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ...) have no common prefix.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
// llhttp's parser errors: the server's answer is not valid HTTP.
const HTTP_CODE = /^(HPE_|UND_ERR_RES_|UND_ERR_INFO$)/;

function classifyCode(code: string): ErrorClass | undefined {
  if (DNS_CODES.has(code)) return 'dns';
  if (CONNECTION_CODES.has(code)) return 'connection';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (TLS_CODE.test(code)) return 'tls';
  if (HTTP_CODE.test(code)) return 'http';
  return undefined;
}

/** The error, its causes and (for Node's happy-eyeballs AggregateError) the attempts it gathers. */
function* errorChain(error: unknown, depth = 0): Generator<unknown> {
  if (error === undefined || error === null || depth > 5) return;
  yield error;
  if (error instanceof AggregateError) for (const inner of error.errors) yield* errorChain(inner, depth + 1);
  if (error instanceof Error) yield* errorChain(error.cause, depth + 1);
}

export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Marks a TCP, DNS or gRPC step failed by `error`: its class, and the message after the step's target (`tcp://
 * db:5432: connect ECONNREFUSED ...`) when the target was known.
 */
export function recordStepFailure(
  result: { status: string; errorClass?: ErrorClass; error?: string; request?: { url: string } },
  error: unknown,
  runSignal: AbortSignal,
): void {
  const { errorClass, message } = classifyStepError(error, runSignal);
  result.status = 'failed';
  result.errorClass = errorClass;
  result.error = result.request === undefined ? message : `${result.request.url}: ${message}`;
}

/** Which DESIGN.md error class a failed step belongs to, and the words that say why. */
export function classifyStepError(
  error: unknown,
  runSignal: AbortSignal,
): { errorClass: ErrorClass; message: string } {
  // A step stopped by the run's end reports that, whatever the aborted request threw.
  if (runSignal.aborted) {
    const reason: unknown = runSignal.reason;
    return { errorClass: errorClassOfRunEnd(reason), message: `stopped: ${describeError(reason)}` };
  }
  const message = describeError(error);
  if (error instanceof RequestTimeoutError) return { errorClass: 'timeout', message };
  if (error instanceof ProtocolAnswerError) return { errorClass: error.errorClass, message };
  if (error instanceof ResponseBodyError || error instanceof RedirectError)
    return { errorClass: 'http', message };
  for (const link of errorChain(error)) {
    // The parser's error has no code for some malformed answers, so its type is what identifies it.
    if (link instanceof errors.HTTPParserError) return { errorClass: 'http', message };
    const code = errorCode(link);
    const errorClass = typeof code === 'string' ? classifyCode(code) : undefined;
    if (errorClass !== undefined) return { errorClass, message };
  }
  return { errorClass: 'runner', message };
}
