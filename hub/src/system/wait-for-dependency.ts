import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { createBackoff } from './backoff.js';
import {
  DependencyUnavailableError,
  isDatabaseUnavailable,
  isRedisUnavailable,
  shortReason,
  type Dependency,
} from './dependency-errors.js';

const PAUSES = { initialMs: 500, maxMs: 5_000 };

/**
 * Runs `attempt` until it succeeds, while it fails because `dependency` is away, for up to `waitSeconds`: a
 * process started while PostgreSQL or Redis restarts (a rollout, a node drain) waits for it with one log line per
 * try instead of crashing on a stack trace. Other failures are thrown at once. When the wait runs out it throws
 * DependencyUnavailableError, which the CLI prints as one line before exiting non-zero.
 */
export async function waitForDependency<T>(
  dependency: Dependency,
  attempt: () => Promise<T>,
  options: { waitSeconds: number; log: Logger },
): Promise<T> {
  const unavailable = dependency === 'database' ? isDatabaseUnavailable : isRedisUnavailable;
  const deadline = Date.now() + options.waitSeconds * 1000;
  const pauses = createBackoff(PAUSES);
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!unavailable(error)) throw error;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new DependencyUnavailableError(
          dependency,
          `${shortReason(error)} (gave up after ${options.waitSeconds} s, STARTUP_WAIT_SECONDS)`,
          { cause: error },
        );
      }
      options.log.warn(
        { dependency, reason: shortReason(error), tries, leftSeconds: Math.ceil(left / 1000) },
        `waiting for the ${dependency}`,
      );
      await sleep(Math.min(pauses.next(), left));
    }
  }
}
