/** What a run job carries: ids only (STYLE rule 6). `runId` is set for manual runs, absent for scheduled ones. */
export interface RunJobData {
  organizationId: string;
  monitorId: string;
  location: string;
  runId?: string;
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
  data: RunJobData;
  slot: string | undefined;
  dueAt: Date;
}

export interface RunConsumer {
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The queues `runs:<location>` and their schedules, on BullMQ (Redis) in production and in process for
 * `meerkat dev` without Redis. Both honour the same contract: at-least-once delivery, schedules by id.
 */
export interface RunQueue {
  enqueue(data: RunJobData & { runId: string }): Promise<void>;
  upsertSchedule(schedule: RunSchedule): Promise<void>;
  removeSchedule(location: string, scheduleId: string): Promise<void>;
  listScheduleIds(location: string): Promise<string[]>;
  /** The schedules of `location` with their timing, so a reconcile rewrites only what changed. */
  listSchedules(location: string): Promise<Array<Pick<RunSchedule, 'id' | 'everyMs' | 'offsetMs'>>>;
  consume(
    locations: readonly string[],
    handler: (job: DeliveredRunJob) => Promise<void>,
    options: { concurrency: number },
  ): RunConsumer;
  close(): Promise<void>;
}
