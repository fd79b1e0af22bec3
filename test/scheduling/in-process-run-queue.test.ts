import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveredRunJob } from '../../hub/src/runs/run-queue.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { capturedLog } from '../harness/captured-log.js';

const DAY_MS = 86_400_000;

// What every RunQueue does is in run-queue-conformance.test.ts; here, what only the in-process twin does.
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
});
