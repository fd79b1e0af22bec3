import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveredRunJob } from '../../hub/src/runs/run-queue.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import type { StartTimer } from '../../hub/src/scheduling/in-process-schedule-store.js';
import { capturedLog } from '../harness/captured-log.js';
import { openInProcessScheduling, testAdmission } from '../harness/scheduling.js';

const DAY_MS = 86_400_000;

// What every RunQueue and ScheduleStore does is in the conformance tests; here, what only the in-process twins
// (the queue and the schedule store of meerkat dev) do.
describe('the in-process run queue and schedules of meerkat dev', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a 30-day schedule once at its slot, past the longest delay a timer takes (24.8 days)', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const { queue, schedules } = openInProcessScheduling(capturedLog().log);
    const delivered: DeliveredRunJob[] = [];
    const consumer = queue.consume(
      ['default'],
      (job) => {
        delivered.push(job);
        return Promise.resolve();
      },
      { admission: testAdmission(1) },
    );
    const everyMs = 30 * DAY_MS;
    await schedules.upsertSchedule({
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

  it('delivers each slot once when every timer fires 1 to 3 ms before it is due', async () => {
    const { schedules, pending, delivered, consumer, setNow } = queueOnTestTimers();
    const everyMs = 10_000;
    await schedules.upsertSchedule(scheduleOf('early', everyMs, 2_500));
    const firstSlot = Date.parse('2026-01-01T00:00:02.500Z');

    // 40 firings: a timer fired early finds the clock before its slot; the one it arms next must not be for it.
    for (let firing = 0; firing < 40; firing += 1) {
      const timer = pending.shift();
      if (timer === undefined) break;
      if (timer.cancelled) continue;
      setNow(timer.dueMs - (1 + (firing % 3)));
      timer.callback();
      await Promise.resolve();
    }
    await consumer.close();

    const slots = Array.from({ length: delivered.length }, (_, i) => String(firstSlot + i * everyMs));
    expect(delivered.length).toBeGreaterThanOrEqual(20);
    expect(delivered).toEqual(slots);
  });

  it('does not deliver again a slot enqueueSlot gave, nor one the timer gave', async () => {
    const { queue, schedules, pending, delivered, consumer, setNow } = queueOnTestTimers();
    const schedule = scheduleOf('backfilled', 10_000, 0);
    await schedules.upsertSchedule(schedule);
    const next = START_MS + 10_000;
    await queue.enqueueSlot(schedule, next);
    setNow(next);
    pending.shift()?.callback();
    await queue.enqueueSlot(schedule, next);
    await consumer.close();
    expect(delivered).toEqual([String(next)]);
  });

  it('delivers the latest slot when its timer fires periods late, counting the slots passed over as late', async () => {
    const { schedules, pending, delivered, skipped, consumer, setNow } = queueOnTestTimers();
    await schedules.upsertSchedule(scheduleOf('paused', 10_000, 0));
    const timer = pending.shift();
    if (timer === undefined) throw new Error('no timer armed');
    // The process was stopped (SIGSTOP, a laptop asleep) through this slot and the next two.
    setNow(timer.dueMs + 25_000);
    timer.callback();
    await Promise.resolve();
    await consumer.close();

    expect(delivered).toEqual([String(timer.dueMs + 20_000)]);
    expect(skipped).toEqual([`${timer.dueMs} late`, `${timer.dueMs + 10_000} late`]);
    expect(pending.filter((t) => !t.cancelled).map((t) => t.dueMs)).toEqual([timer.dueMs + 30_000]);
  });

  it('holds at most its admission’s slots, shedding the oldest waiting for a check for a newer one (ADR 0040)', async () => {
    const queue = createInProcessRunQueue({ log: capturedLog().log });
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const shed: number[] = [];
    // One check place, two slots held; the handler checks through the admission's places, as a worker does.
    const admission = testAdmission(1, 2);
    const consumer = queue.consume(
      ['default'],
      (job) =>
        admission.checks.run(
          async () => {
            started.push(job.slot ?? 'no slot');
            await blocked;
          },
          job.data.organizationId,
          true,
        ),
      {
        admission,
        onSkipped: (slots, reason) => {
          expect(reason).toBe('shed');
          shed.push(...slots.map((slot) => slot.slotMs));
        },
      },
    );
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const schedule = scheduleOf('busy', 10_000, 0);
    for (const slotMs of [10_000, 20_000, 30_000, 40_000]) {
      await queue.enqueueSlot(schedule, slotMs);
      await settled();
    }
    // One checking, one waiting: each newer slot took the place of the oldest waiting one.
    expect(admission.state()).toMatchObject({ held: 2, checking: 1, waitingForCheck: 1 });
    expect(shed).toEqual([20_000, 30_000]);
    release();
    await settled();
    expect(started).toEqual(['10000', '40000']);
    await consumer.close();
    await queue.close();
  });

  it('sheds from the organization with the most slots waiting when none it holds can go (ADR 0053)', async () => {
    const queue = createInProcessRunQueue({ log: capturedLog().log });
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const shed: string[] = [];
    // Two slots held, both checking (not through the places, so neither can be shed): the rest waits in line.
    const admission = testAdmission(1, 2);
    const consumer = queue.consume(
      ['default'],
      async (job) => {
        started.push(`${job.data.organizationId}@${job.slot}`);
        await blocked;
      },
      {
        admission,
        onSkipped: (slots, reason) => {
          expect(reason).toBe('shed');
          shed.push(...slots.map((slot) => `${slot.data.organizationId}@${slot.slotMs}`));
        },
      },
    );
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const large = ['l1', 'l2', 'l3', 'l4'].map((id) => scheduleOf(id, 10_000, 0));
    const small = {
      ...scheduleOf('s1', 10_000, 0),
      data: { ...scheduleOf('s1', 10_000, 0).data, organizationId: 'small' },
    };
    for (const [schedule, slotMs] of [
      [large[0]!, 10_000],
      [large[1]!, 10_000],
      [small, 10_000],
      [large[2]!, 20_000],
      [large[3]!, 30_000],
    ] as const) {
      await queue.enqueueSlot(schedule, slotMs);
      await settled();
    }
    // The small organization's slot waited longest, yet the large one's oldest waiting went.
    expect(shed).toEqual(['acme@20000']);
    release();
    for (let i = 0; i < 5; i += 1) await settled();
    expect(started).toEqual(['acme@10000', 'acme@10000', 'small@10000', 'acme@30000']);
    await consumer.close();
    await queue.close();
  });
});

const START_MS = Date.parse('2026-01-01T00:00:00Z');

function scheduleOf(id: string, everyMs: number, offsetMs: number) {
  return {
    id,
    location: 'default',
    everyMs,
    offsetMs,
    data: { organizationId: 'acme', monitorId: id, location: 'default' },
  };
}

/** A queue on a clock the test moves and timers it fires itself (early, if it likes), consumed at once. */
function queueOnTestTimers() {
  let nowMs = START_MS;
  const pending: Array<{ dueMs: number; callback: () => void; cancelled: boolean }> = [];
  const startTimer: StartTimer = (callback, ms) => {
    const timer = { dueMs: nowMs + ms, callback, cancelled: false };
    pending.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  };
  const { queue, schedules } = openInProcessScheduling(capturedLog().log, {
    clock: { now: () => new Date(nowMs) },
    startTimer,
  });
  const delivered: string[] = [];
  const skipped: string[] = [];
  const consumer = queue.consume(
    ['default'],
    (job) => {
      delivered.push(job.slot ?? 'no slot');
      return Promise.resolve();
    },
    {
      admission: testAdmission(10),
      onSkipped: (slots, reason) => skipped.push(...slots.map((slot) => `${slot.slotMs} ${reason}`)),
    },
  );
  // The clock never goes back, as Date.now() in practice does not between two timers.
  const setNow = (ms: number) => void (nowMs = Math.max(nowMs, ms));
  return { queue, schedules, pending, delivered, skipped, consumer, setNow };
}
