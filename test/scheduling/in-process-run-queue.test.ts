import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveredRunJob } from '../../hub/src/scheduling/run-queue.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { DependencyUnavailableError } from '../../hub/src/system/dependency-errors.js';
import { capturedLog } from '../harness/captured-log.js';
import { eventually } from '../harness/eventually.js';

const DAY_MS = 86_400_000;

describe('the in-process run queue of meerkat dev', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a 30-day schedule once at its slot, past the longest delay a timer takes (24.8 days)', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const queue = createInProcessRunQueue({ log: capturedLog().log });
    const delivered: DeliveredRunJob[] = [];
    const consumer = queue.consume(
      ['default'],
      (job) => {
        delivered.push(job);
        return Promise.resolve();
      },
      { concurrency: 1 },
    );
    const everyMs = 30 * DAY_MS;
    await queue.upsertSchedule({
      id: 'monthly',
      location: 'default',
      everyMs,
      offsetMs: 0,
      data: { organizationId: 'acme', monitorId: 'monthly', location: 'default' },
    });
    const slot = Math.ceil(Date.now() / everyMs) * everyMs;

    await vi.advanceTimersByTimeAsync(slot - Date.now() - 1000);
    expect(delivered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(delivered.map((job) => job.dueAt.getTime())).toEqual([slot]);
    await vi.advanceTimersByTimeAsync(everyMs - 1000);
    expect(delivered).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(delivered.map((job) => job.slot)).toEqual([String(slot), String(slot + everyMs)]);
    await consumer.close();
  });

  it('drops a job whose handler throws, logs it naming its run, and goes on with the next job', async () => {
    const capture = capturedLog();
    const queue = createInProcessRunQueue({ log: capture.log });
    const handled: string[] = [];
    const dropped: string[] = [];
    const consumer = queue.consume(
      ['default'],
      (job) => {
        handled.push(job.data.runId ?? '');
        return job.data.runId === 'run_broken'
          ? Promise.reject(new Error('the result could not be written'))
          : Promise.resolve();
      },
      { concurrency: 1, onDropped: (job, reason) => dropped.push(`${job.data.runId}:${reason}`) },
    );
    const job = { organizationId: 'acme', monitorId: 'm', location: 'default' };
    await queue.enqueue({ ...job, runId: 'run_broken' });
    await queue.enqueue({ ...job, runId: 'run_fine' });
    await eventually(() => Promise.resolve(handled.length === 2 ? true : undefined));
    await consumer.close();

    const failures = capture.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'run job dropped');
    expect(failures).toMatchObject([
      {
        level: 50,
        reason: 'error',
        runId: 'run_broken',
        organizationId: 'acme',
        monitorId: 'm',
        location: 'default',
        err: { message: 'the result could not be written' },
      },
    ]);
    expect(handled).toEqual(['run_broken', 'run_fine']);
    expect(dropped).toEqual(['run_broken:error']);
  });

  it('delivers a job again while its handler finds a dependency away', async () => {
    vi.useFakeTimers();
    try {
      const queue = createInProcessRunQueue({ log: capturedLog().log, retrySeconds: 10 });
      const deliveries: number[] = [];
      const consumer = queue.consume(
        ['default'],
        (job) => {
          deliveries.push(job.delivery);
          return job.delivery < 3
            ? Promise.reject(new DependencyUnavailableError('database', 'connect ECONNREFUSED'))
            : Promise.resolve();
        },
        { concurrency: 1 },
      );
      await queue.enqueue({ organizationId: 'acme', monitorId: 'm', location: 'default', runId: 'run_x' });
      await vi.advanceTimersByTimeAsync(1000 + 2000);
      expect(deliveries).toEqual([1, 2, 3]);
      await consumer.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
