/** What a run job carries: ids only (docs/contract/STYLE.md, rule 6). `runId` is set for manual runs, absent for scheduled ones. */
export interface RunJobData {
  organizationId: string;
  monitorId: string;
  location: string;
  runId?: string;
  /**
   * A scheduled job's monitor version (its `updatedAt`) when the schedule was written: a worker that has read
   * that version runs it without reading it again (docs/adr/0022-batched-run-writes.md).
   */
  version?: string;
}

/** One repeating schedule: a (monitor, location) pair every `everyMs`, shifted by `offsetMs` to spread load. */
export interface RunSchedule {
  id: string;
  location: string;
  everyMs: number;
  offsetMs: number;
  data: RunJobData;
}

/** A job as a consumer receives it. `slot` identifies a scheduled slot; two deliveries of one slot share it. */
export interface DeliveredRunJob {
  /** The job's id: the same on every delivery of the job. */
  id: string;
  data: RunJobData;
  slot: string | undefined;
  dueAt: Date;
  /**
   * A scheduled slot's period: once `dueAt + everyMs` has passed, the next slot of its schedule is due and this
   * one is shed rather than checked late (docs/adr/0040-overload-is-shed.md). Absent: never shed.
   */
  everyMs?: number;
  /**
   * 1 on the first delivery; more when the job comes again: a retry after the handler threw because a dependency
   * was away, or a redelivery after the consumer holding it died.
   */
  delivery: number;
}

/**
 * Why a job was given up: its dependency stayed away past RUN_RECORD_RETRY_SECONDS, workers kept shutting down
 * while it ran, or the handler failed.
 */
export type DropReason = 'dependency_unavailable' | 'shutdown' | 'error';

/**
 * A scheduled run that was checked but whose write found the database away (ResultAwaitingWriteError), as the
 * queue keeps it: JSON, with the ids a log line or a drop needs beside what its executor reads back.
 */
export interface HandedOverResult {
  organizationId: string;
  monitorId: string;
  location: string;
  slot: string;
  /** The run and its result, in the form of the executor that wrote them (JSON). */
  executed: unknown;
}

/**
 * Why slots were never checked: the location's workers were saturated and the ticks queued nothing
 * (`saturated`); a worker shed the slot because the next slot of its schedule was due before it got a place
 * (`shed`); no tick ran in time, as while Redis or every worker was away (`late`); or the worker holding them
 * died after their time, so their checks may have reached the target already (`worker_lost`).
 */
export type SkipReason = 'saturated' | 'shed' | 'late' | 'worker_lost';

/** A slot that will never have a run, as the queue reports it. */
export interface SkippedSlot {
  data: RunJobData;
  slotMs: number;
}

export interface ConsumeOptions {
  concurrency: number;
  /**
   * WORKER_MAX_HELD_SLOTS: the slots a consumer holds at once (waiting for their time or a place, checking, or
   * waiting for their write). At it the consumer takes no more, and what no consumer takes is shed and
   * counted (docs/adr/0040-overload-is-shed.md). Absent: twice `concurrency`.
   */
  maxHeldSlots?: number;
  /**
   * Takes up to `count` scheduled slots that wait for a check place out of line (they end as SlotSupersededError),
   * oldest of the largest organization first, to make room under `maxHeldSlots` for newer ones; answers how many.
   */
  shedWaiting?: (count: number) => number;
  /** Told of each job given up for good (logged by the queue too), so the loss is counted. */
  onDropped?: (job: DeliveredRunJob, reason: DropReason) => void;
  /**
   * Writes results handed over by ResultAwaitingWriteError. The queue gives them again after a backoff while
   * it throws because a dependency is away, for up to RUN_RECORD_RETRY_SECONDS, then drops them (onDropped).
   * Absent: such a job is retried whole, and its check runs again.
   */
  writeResults?: (results: readonly HandedOverResult[]) => Promise<void>;
  /** Told of slots that will never be checked, so each is counted as a gap of the slot ledger. */
  onSkipped?: (slots: readonly SkippedSlot[], reason: SkipReason) => void;
}

/** A schedule as the queue holds it; `current` is false when it was written with other job options. */
export interface ListedSchedule extends Pick<RunSchedule, 'id' | 'everyMs' | 'offsetMs'> {
  current: boolean;
  /** Its definition is kept but its next slot is gone (Redis lost a key): it runs no more until rewritten. */
  lost?: true;
  /** The monitor version its jobs carry. */
  version: string | undefined;
}

export interface RunConsumer {
  /** The slots it holds now (meerkat_worker_slots_held), at most `maxHeldSlots` (unless one batch alone is larger) once the slots shed to make room have left. */
  heldSlots(): number;
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The queues `runs:<location>` and their schedules, on BullMQ (Redis) in production and in process for
 * `meerkat dev` without Redis. Both honour the same contract: at-least-once delivery, schedules by id.
 */
export interface RunQueue {
  enqueue(data: RunJobData & { runId: string }): Promise<void>;
  /**
   * Writes a schedule; its first slot is the first after now, or after `firstSlotAfterMs` (a restore after a loss
   * starts past every slot a tick may have queued before it).
   */
  upsertSchedule(schedule: RunSchedule, options?: { firstSlotAfterMs?: number }): Promise<void>;
  /**
   * The job of one slot of `schedule`, as its scheduler would have made it (the same job id, so never twice):
   * after the schedules were lost, the slot the gap swallowed runs at once instead of waiting for the next one.
   */
  enqueueSlot(schedule: RunSchedule, slotMs: number): Promise<void>;
  /**
   * The slots of `location` that its jobs hold and have not finished (queued, delayed, being checked, or checked
   * with their results waiting to be written), as `<schedule id>@<slot millis>`; and how far ahead of its time
   * a slot may have been queued. After the schedules were lost, what a restore must not queue again.
   */
  slotsInFlight(location: string): Promise<{ slots: ReadonlySet<string>; aheadMs: number }>;
  removeSchedule(location: string, scheduleId: string): Promise<void>;
  listScheduleIds(location: string): Promise<string[]>;
  /** The schedules of `location` with their timing, so a reconcile rewrites only what changed. */
  listSchedules(location: string): Promise<ListedSchedule[]>;
  /**
   * Delivers jobs to `handler`. A handler that throws because a dependency is away (dependency-errors.ts) gets
   * the job again after a backoff, for up to RUN_RECORD_RETRY_SECONDS; any other failure drops it at once.
   */
  consume(
    locations: readonly string[],
    handler: (job: DeliveredRunJob) => Promise<void>,
    options: ConsumeOptions,
  ): RunConsumer;
  /**
   * Why the schedules of `locations` written by the last full reconcile are no longer all in the queue's store,
   * or '' when they are: after Redis restarted empty, failed over to a replica that lacks them, or evicted or
   * lost any of their keys, so the scheduler reconciles at once.
   */
  missingSchedules(locations: readonly string[]): Promise<string>;
  /** Records that a full reconcile has just written every schedule of `locations`, with their counts. */
  markSchedulesPresent(locations: readonly string[]): Promise<void>;
  /** Records the schedule counts again after an outbox drain, unless the schedules are already known lost. */
  recountSchedules(locations: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
