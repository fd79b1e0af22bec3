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

/**
 * Which room a job asks for. Batches of the first fair lane (every organization's first slots of a window) may fill
 * the whole limit; every other job leaves them a tenth of it (docs/adr/0064-first-lane-reserve.md).
 */
export const HOLD_LANES = ['first', 'later'] as const;
export type HoldLane = (typeof HOLD_LANES)[number];

/**
 * What a consumer asks before it takes on a job, and tells when a slot leaves: the worker's admission
 * (worker/admission.ts, docs/adr/0044-one-door-per-concern.md), its one bound on what it holds.
 */
export interface RunAdmission {
  limits: { readonly heldSlots: number };
  /**
   * Holds `count` slots, shedding slots waiting for a check place with `shedError()` to make room; false: hand the
   * job back. Jobs of later lanes leave the first lane a reserve (docs/adr/0064-first-lane-reserve.md).
   */
  tryHold(count: number, shedError: () => Error, lane: HoldLane): boolean;
  release(count: number): void;
  /** Whether a consumer that handed jobs of `lane` back may take them again. */
  hasRoom(lane: HoldLane): boolean;
}

export interface ConsumeOptions {
  /**
   * Decides what the consumer holds: every slot and run it takes counts until it is checked and written, shed or
   * dropped. What no consumer takes is shed and counted by the ticks (docs/adr/0040-overload-is-shed.md).
   */
  admission: RunAdmission;
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

export interface RunConsumer {
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The queues `runs:<location>`, on BullMQ (Redis) in production and in process for `meerkat dev` without Redis.
 * Both honour the same contract: at-least-once delivery. The schedules that feed them are a ScheduleStore
 * (schedule-store.ts); a consumer turns the slots those schedules make due into jobs of its locations.
 */
export interface RunQueue {
  enqueue(data: RunJobData & { runId: string }): Promise<void>;
  /**
   * The job of one slot of `schedule`, as its schedule would have made it (the same job id, so never twice):
   * after the schedules were lost, the slot the gap swallowed runs at once instead of waiting for the next one.
   */
  enqueueSlot(schedule: RunSchedule, slotMs: number): Promise<void>;
  /**
   * The slots of `location` that its jobs hold and have not finished (queued, delayed, being checked, or checked
   * with their results waiting to be written), as `<schedule id>@<slot millis>`; and how far ahead of its time
   * a slot may have been queued. After the schedules were lost, what a restore must not queue again.
   */
  slotsInFlight(location: string): Promise<{ slots: ReadonlySet<string>; aheadMs: number }>;
  /**
   * Delivers jobs to `handler`, and the slots of the locations' schedules as they fall due. A handler that
   * throws because a dependency is away (dependency-errors.ts) gets the job again after a backoff, for up to
   * RUN_RECORD_RETRY_SECONDS; any other failure drops it at once.
   */
  consume(
    locations: readonly string[],
    handler: (job: DeliveredRunJob) => Promise<void>,
    options: ConsumeOptions,
  ): RunConsumer;
  close(): Promise<void>;
}
