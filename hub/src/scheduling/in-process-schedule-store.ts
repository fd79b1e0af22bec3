import type { RunSchedule } from '../runs/run-queue.js';
import type { ScheduleStore } from '../runs/schedule-store.js';
import type { InProcessRunQueue } from './in-process-run-queue.js';
import { latestSlotMs } from './schedules.js';

/** A one-shot timer that has been started, and how to cancel it. */
export interface StartedTimer {
  cancel(): void;
}

/** Starts a one-shot timer; tests inject one that fires early, as Node's timers sometimes do by a millisecond. */
export type StartTimer = (callback: () => void, ms: number) => StartedTimer;

const nodeTimer: StartTimer = (callback, ms) => {
  const handle = setTimeout(callback, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

interface Timer {
  schedule: RunSchedule;
  handle: StartedTimer;
}

/** The longest delay setTimeout takes (about 24.8 days); monitors may run as rarely as every 30 days. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Slots of one schedule counted `skipped_late` per late timer; older ones are left to the auditor (`lost`). */
const MAX_LATE_SKIPS = 1_000;

/**
 * The ScheduleStore contract in one process, for `meerkat dev` without Redis: each schedule fires on a timer at
 * the same offset-aligned slots the Redis schedules use, and delivers its slot to the in-process queue. Its
 * schedules live as long as the process, as does the queue: they are never lost on their own.
 */
export function createInProcessScheduleStore(
  queue: InProcessRunQueue,
  options: { clock?: { now(): Date }; startTimer?: StartTimer } = {},
): ScheduleStore {
  const { clock = { now: () => new Date() }, startTimer = nodeTimer } = options;
  const timers = new Map<string, Timer>();

  // The next slot comes after the last one delivered, not after the clock: a timer that fires a millisecond
  // early reads a clock still before its slot, and a next slot taken from the clock alone is that same slot,
  // delivered again a millisecond later (8.6% of checks sent twice at 2,000 monitors, issue #32).
  const arm = (schedule: RunSchedule) => {
    const now = clock.now().getTime();
    const lastSlot = queue.lastSlotOf(schedule.id);
    const next = latestSlotMs(schedule, Math.max(now, lastSlot ?? now)) + schedule.everyMs;
    const wait = next - now;
    const entry: Timer = { schedule, handle: { cancel: () => undefined } };
    entry.handle = startTimer(
      () => {
        if (timers.get(schedule.id) !== entry) return;
        // Node fires a longer timeout after 1 ms: a slot further away than that is reached in steps.
        // The queue delivers no slot twice (enqueueSlot may have given this one already).
        // A rewrite with the same timing (a new monitor version) keeps the timer and replaced `entry.schedule`.
        if (wait <= MAX_TIMEOUT_MS) deliverLatest(entry.schedule, next);
        arm(entry.schedule);
      },
      Math.max(0, Math.min(wait, MAX_TIMEOUT_MS)),
    );
    timers.set(schedule.id, entry);
  };

  // A timer that fires a period or more late (the process was stopped, a laptop slept, the event loop stalled)
  // delivers the latest slot due, as the Redis schedules do after a pause, and counts the slots it passed over as
  // `skipped_late`: the next timer is armed from the clock, so nothing else would ever account for them.
  const deliverLatest = (schedule: RunSchedule, next: number) => {
    const latest = Math.max(next, latestSlotMs(schedule, clock.now().getTime()));
    const delivered = queue.lastSlotOf(schedule.id) ?? -Infinity;
    const passed: number[] = [];
    const first = Math.max(next, latest - MAX_LATE_SKIPS * schedule.everyMs);
    for (let slot = first; slot < latest; slot += schedule.everyMs) if (slot > delivered) passed.push(slot);
    queue.skipSlots(schedule, passed, 'late');
    queue.deliverSlot(schedule, latest);
  };

  const listed = (location: string) => [...timers.values()].filter((t) => t.schedule.location === location);

  return {
    // Its schedules are never lost, so no restore asks for a first slot of its own.
    upsertSchedule(schedule) {
      const existing = timers.get(schedule.id);
      const same =
        existing &&
        existing.schedule.everyMs === schedule.everyMs &&
        existing.schedule.offsetMs === schedule.offsetMs;
      if (same) existing.schedule = schedule;
      else {
        existing?.handle.cancel();
        arm(schedule);
      }
      return Promise.resolve();
    },
    removeSchedule(_location, scheduleId) {
      timers.get(scheduleId)?.handle.cancel();
      timers.delete(scheduleId);
      return Promise.resolve();
    },
    listScheduleIds: (location) => Promise.resolve(listed(location).map((t) => t.schedule.id)),
    listSchedules: (location) =>
      Promise.resolve(
        listed(location).map(({ schedule: { id, everyMs, offsetMs, data } }) => ({
          id,
          everyMs,
          offsetMs,
          version: data.version,
          current: true,
        })),
      ),
    missingSchedules: () => Promise.resolve(''),
    markSchedulesPresent: () => Promise.resolve(),
    recountSchedules: () => Promise.resolve(),
    close() {
      for (const { handle } of timers.values()) handle.cancel();
      timers.clear();
      return Promise.resolve();
    },
  };
}
