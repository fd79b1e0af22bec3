// Exponential backoff, the one way Meerkat waits before trying again (docs/adr/0041-one-backoff-read-only-get.md):
// retry n (counted from 0) waits initialMs × 2^n, capped at maxMs, then jittered so that callers that failed
// together (replicas, Monitors, watches) do not come back together.

/**
 * How the capped delay is spread: `none` keeps it; `full` draws from [0, delay) (the widest spread, for retries
 * many replicas make at once); `equal` from [delay / 2, delay) (never less than half); `{ spread }` from
 * [delay × (1 − spread), delay × (1 + spread)) (around the delay, as controller-runtime's work queue).
 */
export type Jitter = 'none' | 'full' | 'equal' | { spread: number };

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** `none` when absent. */
  jitter?: Jitter;
  /** A number in [0, 1); Math.random when absent, a fixed sequence in tests. */
  random?: () => number;
}

/** Past this many doublings every delay is at its cap; stops 2^n from reaching Infinity. */
const MAX_DOUBLINGS = 64;

/** The pause before retry `retry` (0 for the first retry after a failure). */
export function backoffDelayMs(policy: BackoffPolicy, retry: number): number {
  const doublings = Math.min(Math.max(0, retry), MAX_DOUBLINGS);
  const delay = Math.min(policy.initialMs * 2 ** doublings, policy.maxMs);
  const jitter = policy.jitter ?? 'none';
  if (jitter === 'none') return delay;
  const random = (policy.random ?? Math.random)();
  if (jitter === 'full') return delay * random;
  if (jitter === 'equal') return delay / 2 + (delay / 2) * random;
  return delay * (1 - jitter.spread + 2 * jitter.spread * random);
}

export interface Backoff {
  /** The pause before the next try; each call is one more failure in a row. */
  next(): number;
  /** A try succeeded: the next failure starts again from initialMs. */
  reset(): void;
}

/** A backoff that counts failures in a row itself, for a loop or a watch that retries one thing. */
export function createBackoff(policy: BackoffPolicy): Backoff {
  let retries = 0;
  return {
    next() {
      const delay = backoffDelayMs(policy, retries);
      retries += 1;
      return delay;
    },
    reset() {
      retries = 0;
    },
  };
}
