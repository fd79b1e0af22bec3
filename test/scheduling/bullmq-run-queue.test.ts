import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { deliveriesFor, retryDelayMs } from '../../hub/src/scheduling/job-retries.js';
import type { DeliveredRunJob, DropReason } from '../../hub/src/scheduling/run-queue.js';
import { DependencyUnavailableError } from '../../hub/src/system/dependency-errors.js';
import { capturedLog } from '../harness/captured-log.js';
import { testRedisUrl } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';

const job = { organizationId: 'acme', monitorId: 'm', location: 'default' } as const;

function testQueue(log = capturedLog().log) {
  return createBullmqRunQueue({
    redisUrl: testRedisUrl(),
    prefix: `test-${randomBytes(6).toString('hex')}`,
    log,
    retrySeconds: 10,
  });
}

const entries = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the BullMQ run queue', () => {
  it('drops a job whose handler fails for any reason but a dependency at once, naming its run', async () => {
    const capture = capturedLog();
    const queue = testQueue(capture.log);
    const dropped: Array<[DeliveredRunJob, DropReason]> = [];
    const deliveries: number[] = [];
    const consumer = queue.consume(
      ['default'],
      (delivered) => {
        deliveries.push(delivered.delivery);
        return Promise.reject(new Error('the definition cannot be read'));
      },
      { concurrency: 1, onDropped: (delivered, reason) => dropped.push([delivered, reason]) },
    );
    try {
      await queue.enqueue({ ...job, runId: 'run_broken' });
      const entry = await eventually(() =>
        Promise.resolve(entries(capture.lines).find((e) => e.msg === 'run job dropped')),
      );
      expect(entry).toMatchObject({
        level: 50,
        organizationId: 'acme',
        monitorId: 'm',
        location: 'default',
        runId: 'run_broken',
        reason: 'error',
        attempt: 1,
        err: { message: 'the definition cannot be read' },
      });
      expect(deliveries).toEqual([1]);
      expect(dropped.map(([d, reason]) => [d.data.runId, reason])).toEqual([['run_broken', 'error']]);
    } finally {
      await consumer.close();
      await queue.close();
    }
  });

  it('delivers a job again, with its delivery count, while its handler finds a dependency away', async () => {
    const capture = capturedLog();
    const queue = testQueue(capture.log);
    const deliveries: number[] = [];
    const consumer = queue.consume(
      ['default'],
      (delivered) => {
        deliveries.push(delivered.delivery);
        if (delivered.delivery < 3)
          return Promise.reject(new DependencyUnavailableError('database', 'connect ECONNREFUSED'));
        return Promise.resolve();
      },
      { concurrency: 1 },
    );
    try {
      await queue.enqueue({ ...job, runId: 'run_retried' });
      await eventually(() => Promise.resolve(deliveries.length === 3));
      expect(deliveries).toEqual([1, 2, 3]);
      const retried = entries(capture.lines).filter((e) => e.msg === 'run job will be retried');
      expect(retried).toHaveLength(2);
      expect(entries(capture.lines).some((e) => e.msg === 'run job dropped')).toBe(false);
    } finally {
      await consumer.close();
      await queue.close();
    }
  });

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
