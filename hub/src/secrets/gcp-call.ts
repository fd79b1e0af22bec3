import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { UnavailableError } from '../http/errors.js';
import { backoffDelayMs } from '../system/backoff.js';
import { SecretStoreError } from './secret-errors.js';

/** The gRPC status codes the gcp backend tells apart (they are fixed by the gRPC specification). */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const codeNames = new Map<number, string>(Object.entries(GrpcCode).map(([name, code]) => [code, name]));
const transientCodes = new Set<number>([
  GrpcCode.UNAVAILABLE,
  GrpcCode.RESOURCE_EXHAUSTED,
  GrpcCode.DEADLINE_EXCEEDED,
]);

export interface RetryPolicy {
  /** Calls in all, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** Deadline of one call; the client library's own, much longer retries are turned off. */
  callTimeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 4,
  initialDelayMs: 200,
  maxDelayMs: 2000,
  callTimeoutMs: 5000,
};

export function grpcCodeOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number'
    ? error.code
    : undefined;
}

function codeName(code: number | undefined): string {
  return code === undefined ? 'no gRPC status' : (codeNames.get(code) ?? `gRPC status ${code}`);
}

/** Exponential backoff with full jitter, so replicas that failed together do not retry together. */
function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return backoffDelayMs(
    { initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 'full' },
    attempt - 1,
  );
}

function toStoreError(action: string, code: number | undefined, attempts: number): Error {
  if (code !== undefined && transientCodes.has(code)) {
    return new UnavailableError(
      `Secret Manager did not ${action} (${codeName(code)}) after ${attempts} attempts`,
    );
  }
  if (code === GrpcCode.PERMISSION_DENIED || code === GrpcCode.UNAUTHENTICATED) {
    return new SecretStoreError(
      `Secret Manager refused to ${action} (${codeName(code)}): the hub's service account lacks a role listed in docs/secrets.md`,
    );
  }
  return new SecretStoreError(`Secret Manager could not ${action} (${codeName(code)})`);
}

export interface SecretManagerCaller {
  /**
   * Runs one Secret Manager call: transient failures (UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED) are
   * retried with backoff; codes in `expected` are rethrown untouched for the caller to handle; anything else
   * becomes UnavailableError (503) or SecretStoreError (500), logged with its cause.
   */
  call<T>(action: string, run: () => Promise<T>, expected?: readonly number[]): Promise<T>;
}

export function createSecretManagerCaller(policy: RetryPolicy, log: Logger): SecretManagerCaller {
  return {
    async call(action, run, expected = []) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await run();
        } catch (error) {
          const code = grpcCodeOf(error);
          if (code !== undefined && expected.includes(code)) throw error;
          if (code !== undefined && transientCodes.has(code) && attempt < policy.attempts) {
            log.warn({ grpcCode: codeName(code), attempt }, `Secret Manager failed to ${action}; retrying`);
            await sleep(retryDelayMs(policy, attempt));
            continue;
          }
          log.error({ err: error, grpcCode: codeName(code) }, `Secret Manager failed to ${action}`);
          throw toStoreError(action, code, attempt);
        }
      }
    },
  };
}
