import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  createMonitorsAndAwaitFirstRuns,
  startFaultDeployment,
  type FaultDeployment,
} from './fault-deployment.js';

const MONITORS = 10;
/** Within this long of losing a key, every monitor runs again: the scheduler checks each second. */
const HEALED_WITHIN_MS = 15_000;

/** The milliseconds after `since` at which each monitor's first check reached the target, if it did. */
function firstHitsAfter(target: CountingTarget, ids: readonly string[], since: number): Map<string, number> {
  const first = new Map<string, number>();
  for (const hit of target.hits)
    if (hit.arrivedAt >= since && ids.includes(hit.monitorId) && !first.has(hit.monitorId))
      first.set(hit.monitorId, hit.arrivedAt - since);
  return first;
}

async function everyMonitorRunsAgain(target: CountingTarget, ids: readonly string[], since: number) {
  const ends = since + 2 * HEALED_WITHIN_MS;
  while (firstHitsAfter(target, ids, since).size < ids.length && Date.now() < ends) await sleep(250);
  const first = firstHitsAfter(target, ids, since);
  return ids.filter((id) => (first.get(id) ?? Infinity) > HEALED_WITHIN_MS);
}

describe('Redis that loses schedule keys, or may evict them', () => {
  let target: CountingTarget;
  let deployment: FaultDeployment;
  let redis: Redis;
  const ids = Array.from({ length: MONITORS }, (_, i) => `key-loss-${i}`);
  beforeAll(async () => {
    target = await startCountingTarget();
    deployment = await startFaultDeployment(['hub', 'scheduler', 'worker']);
    redis = new Redis(deployment.env.REDIS_URL ?? '');
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids);
  }, 180_000);
  afterAll(async () => {
    redis?.disconnect();
    await deployment?.close();
    await target?.close();
  }, 60_000);

  it('runs every monitor again within 15 s when the next slots are evicted and the definitions kept', async () => {
    await redis.del('runs:meerkat:default:next');
    const lostAt = Date.now();
    const late = await everyMonitorRunsAgain(target, ids, lostAt);
    console.log(`[faults] next slots deleted: ${MONITORS - late.length}/${MONITORS} ran again within 15 s`);
    expect(late).toEqual([]);
    expect(await redis.zcard('runs:meerkat:default:next')).toBe(MONITORS);
    expect(deployment.exited()).toEqual([]);
  }, 60_000);

  it('runs every monitor again within 15 s when the definitions and next slots are both gone', async () => {
    await redis.del('runs:meerkat:default:next', 'runs:meerkat:default:schedules');
    const lostAt = Date.now();
    const late = await everyMonitorRunsAgain(target, ids, lostAt);
    console.log(
      `[faults] schedule keys deleted: ${MONITORS - late.length}/${MONITORS} ran again within 15 s`,
    );
    expect(late).toEqual([]);
    expect(await redis.hlen('runs:meerkat:default:schedules')).toBe(MONITORS);
  }, 60_000);

  it('is not ready, saying why, while Redis may evict keys, and is again once it may not', async () => {
    const readyz = async () => {
      const response = await fetch(`${deployment.hub().url}/readyz`, { signal: AbortSignal.timeout(10_000) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const evictionUp = async () => {
      const scrape = await (await fetch(deployment.hub().metricsUrl)).text();
      return samplesOf(scrape, 'meerkat_dependency_up').find(
        (s) => s.labels.dependency === 'redis_eviction_policy',
      )?.value;
    };
    const [, before] = await redis.config('GET', 'maxmemory-policy');
    expect(before).toBe('noeviction');
    expect((await readyz()).status).toBe(200);
    expect(await evictionUp()).toBe(1);

    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const refused = await readyz();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        code: 'unavailable',
        details: [
          {
            path: 'redis_eviction_policy',
            message: expect.stringMatching(/maxmemory-policy is allkeys-lru/) as unknown,
          },
        ],
      });
      expect(await evictionUp()).toBe(0);
    } finally {
      await redis.config('SET', 'maxmemory-policy', 'noeviction');
    }
    expect((await readyz()).status).toBe(200);
    expect(await evictionUp()).toBe(1);
  }, 60_000);
});
