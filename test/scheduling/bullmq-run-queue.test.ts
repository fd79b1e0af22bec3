import { describe, expect, it } from 'vitest';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { deliveriesFor, retryDelayMs } from '../../hub/src/scheduling/job-retries.js';
import { capturedLog } from '../harness/captured-log.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';

const job = { organizationId: 'acme', monitorId: 'm', location: 'default' } as const;

function testQueue(log = capturedLog().log) {
  return createBullmqRunQueue({ redisUrl: testRedisUrl(), prefix: testRedisPrefix(), log, retrySeconds: 10 });
}

// What every RunQueue does is in run-queue-conformance.test.ts; here, what only BullMQ on Redis does.
describe('the BullMQ run queue', () => {
  it('answers a producer call within its deadline when Redis is away', async () => {
    const queue = createBullmqRunQueue({
      redisUrl: 'redis://127.0.0.1:1',
      prefix: 'unreachable',
      log: capturedLog().log,
      retrySeconds: 10,
    });
    try {
      await expect(queue.enqueue({ ...job, runId: 'run_nowhere' })).rejects.toMatchObject({
        dependency: 'redis',
      });
      await expect(queue.schedulesPresent()).rejects.toMatchObject({ dependency: 'redis' });
    } finally {
      await queue.close();
    }
  });

  it('keeps a marker of the last full reconcile that an emptied Redis loses', async () => {
    const queue = testQueue();
    try {
      expect(await queue.schedulesPresent()).toBe(false);
      await queue.markSchedulesPresent();
      expect(await queue.schedulesPresent()).toBe(true);
    } finally {
      await queue.close();
    }
  });
});

describe('job retries', () => {
  it('double the pause up to 30 s and span at least the retry setting', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    for (const seconds of [10, 60, 600, 3600]) {
      const deliveries = deliveriesFor(seconds);
      const waited = Array.from({ length: deliveries - 1 }, (_, i) => retryDelayMs(i + 1)).reduce(
        (a, b) => a + b,
        0,
      );
      expect(waited).toBeGreaterThanOrEqual(seconds * 1000);
      expect(waited - retryDelayMs(deliveries - 1)).toBeLessThan(seconds * 1000);
    }
  });
});
