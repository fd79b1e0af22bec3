import type { Redis } from 'ioredis';
import { withDeadline } from './dependency-errors.js';

/**
 * How long the policy is waited for: well within the readiness check's own bound, so a Redis that hangs (paused,
 * partitioned) passes here and is reported by the `redis` check alone, never takes the hub out of its Service.
 */
const READ_DEADLINE_MS = 1_000;

/** The readiness check's name, and so the `dependency` label of its `meerkat_dependency_up` series. */
export const REDIS_EVICTION_CHECK = 'redis_eviction_policy';

/**
 * Fails while Redis may evict keys under memory pressure: any `maxmemory-policy` but `noeviction` (BullMQ's own
 * requirement). An evicting Redis drops queue and schedule keys without a word; a schedule it drops stops its
 * monitor for good. A Redis that is away, or whose CONFIG command a managed service hides, passes: the `redis`
 * check reports the first, and nothing here can read the second; so does one that does not answer in time.
 */
export async function assertRedisNeverEvicts(redis: Redis): Promise<void> {
  let policy: string | undefined;
  try {
    const reply = await withDeadline('redis', READ_DEADLINE_MS, () =>
      redis.config('GET', 'maxmemory-policy'),
    );
    policy = reply[1];
  } catch {
    return;
  }
  if (policy !== undefined && policy !== 'noeviction')
    throw new Error(
      `Redis maxmemory-policy is ${policy}: Meerkat needs noeviction, since an evicted key stops schedules and ` +
        'loses queued runs (set maxmemory-policy noeviction)',
    );
}
