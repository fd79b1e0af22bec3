import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { capturedLog } from '../harness/captured-log.js';
import { testRedisUrl } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';

describe('the BullMQ run queue', () => {
  it('logs each failed attempt of a job whose handler throws, naming its run', async () => {
    const capture = capturedLog();
    const queue = createBullmqRunQueue({
      redisUrl: testRedisUrl(),
      prefix: `test-${randomBytes(6).toString('hex')}`,
      log: capture.log,
    });
    const consumer = queue.consume(
      ['default'],
      () => Promise.reject(new Error('the result could not be written')),
      { concurrency: 1 },
    );
    try {
      await queue.enqueue({
        organizationId: 'acme',
        monitorId: 'm',
        location: 'default',
        runId: 'run_broken',
      });
      const failure = await eventually(() =>
        Promise.resolve(
          capture.lines
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .find((entry) => entry.msg === 'run job failed'),
        ),
      );
      expect(failure).toMatchObject({
        level: 50,
        organizationId: 'acme',
        monitorId: 'm',
        location: 'default',
        runId: 'run_broken',
        attempt: 1,
        of: 3,
        err: { message: 'the result could not be written' },
      });
    } finally {
      await consumer.close();
      await queue.close();
    }
  });
});
