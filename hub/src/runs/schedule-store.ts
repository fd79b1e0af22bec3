import type { RunSchedule } from './run-queue.js';

/** A schedule as the store holds it; `current` is false when it was written with other job options. */
export interface ListedSchedule extends Pick<RunSchedule, 'id' | 'everyMs' | 'offsetMs'> {
  current: boolean;
  /** Its definition is kept but its next slot is gone (Redis lost a key): it runs no more until rewritten. */
  lost?: true;
  /** The monitor version its jobs carry. */
  version: string | undefined;
}

/**
 * The schedules of every location, by id: written by the scheduler (its reconcile and the schedule outbox),
 * read by the consumers of the run queue, which turn each due slot into a job (docs/adr/0044-one-door-per-concern.md).
 * In Redis in production, in process for `meerkat dev` without Redis; both pass the same conformance suite.
 */
export interface ScheduleStore {
  /**
   * Writes a schedule; its first slot is the first after now, or after `firstSlotAfterMs` (a restore after a loss
   * starts past every slot a tick may have queued before it).
   */
  upsertSchedule(schedule: RunSchedule, options?: { firstSlotAfterMs?: number }): Promise<void>;
  removeSchedule(location: string, scheduleId: string): Promise<void>;
  listScheduleIds(location: string): Promise<string[]>;
  /** The schedules of `location` with their timing, so a reconcile rewrites only what changed. */
  listSchedules(location: string): Promise<ListedSchedule[]>;
  /**
   * Why the schedules of `locations` written by the last full reconcile are no longer all in the store, or ''
   * when they are: after Redis restarted empty, failed over to a replica that lacks them, or evicted or lost any
   * of their keys, so the scheduler reconciles at once.
   */
  missingSchedules(locations: readonly string[]): Promise<string>;
  /** Records that a full reconcile has just written every schedule of `locations`, with their counts. */
  markSchedulesPresent(locations: readonly string[]): Promise<void>;
  /** Records the schedule counts again after an outbox drain, unless the schedules are already known lost. */
  recountSchedules(locations: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
