import { backoffDelayMs } from '../system/backoff.js';
import { unavailableDependencyOf } from '../system/dependency-errors.js';
import type { DropReason } from '../runs/run-queue.js';

const JOB_RETRY = { initialMs: 1_000, maxMs: 30_000 };

/** The pause before delivery `attempt + 1` of a job whose handler failed `attempt` times: doubling, capped. */
export function retryDelayMs(attempt: number): number {
  return backoffDelayMs(JOB_RETRY, attempt - 1);
}

/** How many deliveries a job gets so that its retries span at least `retrySeconds` (RUN_RECORD_RETRY_SECONDS). */
export function deliveriesFor(retrySeconds: number): number {
  let waited = 0;
  let attempt = 1;
  while (waited < retrySeconds * 1000) {
    waited += retryDelayMs(attempt);
    attempt += 1;
  }
  return attempt;
}

/**
 * Thrown by a handler that could not carry out its job for a reason of its own process, not of the run (the
 * worker is shutting down): the queue delivers the job again, to this or another consumer.
 */
export class RetryLaterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Whether a handler's failure is worth another delivery: a dependency that was away, or RetryLaterError. */
export function isRetryable(error: unknown): boolean {
  return error instanceof RetryLaterError || unavailableDependencyOf(error) !== undefined;
}

export function dropReasonOf(error: unknown): DropReason {
  if (error instanceof RetryLaterError) return 'shutdown';
  return unavailableDependencyOf(error) !== undefined ? 'dependency_unavailable' : 'error';
}
