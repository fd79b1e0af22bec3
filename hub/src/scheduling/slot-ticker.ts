import type { Logger } from 'pino';
import type { ConsumeOptions } from '../runs/run-queue.js';
import type { RedisProducer } from './redis-producer.js';
import type { DueSlot, RedisSchedules } from './redis-schedules.js';

/** A consumer ticks its locations this often: each tick queues the slots due up to LOOKAHEAD_MS ahead. */
export const TICK_MS = 1_000;
const LOOKAHEAD_MS = 2_000;
/** How far ahead of its time a tick may have queued a slot: the end of its next window. */
export const TICK_AHEAD_MS = TICK_MS + LOOKAHEAD_MS;
/** A batch job is delivered this long before its first slot, so its worker starts each check on time. */
const LEAD_MS = 250;
/**
 * Batches queued and taken by no worker (the next 2 s are 2 or 3 of them), past which ticks queue nothing: the
 * workers of the location are saturated. Its schedules wait unmoved, and each runs its latest slot once when a
 * tick queues again, as a BullMQ job scheduler did (it made a slot's job only once the one before was taken).
 */
const MAX_WAITING_BATCHES = 10;
/**
 * Skipped slots a tick reports at most (an outage of hours over thousands of monitors skips millions): the slot
 * ledger's audit counts any it was not told of.
 */
const MAX_SKIPS_REPORTED = 50_000;

/** What a batch job carries: slots of several schedules of its location, each started at its own time. */
export interface BatchJobData {
  slots: DueSlot[];
  /** The job's stalled count when it last failed: a count above it means its worker died since. */
  stalled?: number;
}

/**
 * Turns the schedules of a location into batch jobs of its queue `<location>.slots`
 * (docs/adr/0023-batched-run-jobs.md). Every consumer of a location ticks it; the tick's claim in Redis lets
 * one of them do it each period.
 */
export function createSlotTicker(options: {
  producer: RedisProducer;
  schedules: RedisSchedules;
  log: Logger;
  /** The queue of a location's batch jobs. */
  slotsQueueOf: (location: string) => string;
  /** The options every batch job is added with (attempts, backoff, removal). */
  jobOptions: object;
  batchJobName: string;
}) {
  const { producer, schedules, log } = options;
  const { bounded } = producer;
  const saturated = new Set<string>();
  /** Queues the slots of `location` due within this tick's window as batch jobs, then moves their schedules on. */
  return async function tick(location: string, onSkipped: ConsumeOptions['onSkipped']): Promise<void> {
    const now = Date.now();
    const horizon = Math.floor(now / TICK_MS) * TICK_MS + LOOKAHEAD_MS;
    if (!(await bounded(() => schedules.claimTick(location, horizon)))) return;
    const slotsQueue = producer.queue<BatchJobData>(options.slotsQueueOf(location));
    // Delayed ones count too: while every worker of the location is paused, none promotes them when due.
    const waiting = await bounded(() => slotsQueue.getJobCountByTypes('waiting', 'delayed'));
    if (waiting >= MAX_WAITING_BATCHES) {
      if (!saturated.has(location))
        log.warn({ location, waiting }, 'the workers of this location are saturated: slots are skipped');
      saturated.add(location);
      return;
    }
    const wasSaturated = saturated.delete(location);
    if (wasSaturated) log.info({ location }, 'the workers of this location keep up again');
    for (;;) {
      const due = await bounded(() => schedules.due(location, horizon, now));
      const skipped = due.skipped.slice(0, MAX_SKIPS_REPORTED);
      for (const batch of due.batches) {
        const delay = Math.max(0, (batch.slots[0]?.slotMs ?? now) - LEAD_MS - Date.now());
        const data: BatchJobData = { slots: batch.slots };
        await bounded(() =>
          slotsQueue.add(options.batchJobName, data, { ...options.jobOptions, jobId: batch.jobId, delay }),
        );
      }
      await bounded(due.commit);
      const reason = wasSaturated ? 'saturated' : 'late';
      // A slot some job claimed meanwhile (an add of an earlier tick that Redis ran late) is that job's to check.
      const unclaimed = await bounded(() => schedules.claimSlots(location, `skipped:${reason}`, skipped));
      if (unclaimed.length > 0) onSkipped?.(unclaimed, reason);
      if (!due.more) return;
    }
  };
}
