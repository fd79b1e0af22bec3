import type { Logger } from 'pino';
import type { ConsumeOptions } from '../runs/run-queue.js';
import type { RedisProducer } from './redis-producer.js';
import type { DueSlot, RedisSchedules } from './redis-schedules.js';
import { createLaneCounter, FIRST_LANE, LANE_NUMBERS } from './fair-lanes.js';

const LATER_LANES = LANE_NUMBERS.filter((lane) => lane !== FIRST_LANE);

/** A consumer ticks its locations this often: each tick queues the slots due up to LOOKAHEAD_MS ahead. */
export const TICK_MS = 1_000;
const LOOKAHEAD_MS = 2_000;
/** How far ahead of its time a tick may have queued a slot: the end of its next window. */
export const TICK_AHEAD_MS = TICK_MS + LOOKAHEAD_MS;
/** A batch job is delivered this long before its first slot, so its worker starts each check on time. */
const LEAD_MS = 250;
/**
 * Batches of one fair lane promoted and taken by no worker, past which ticks skip that lane's slots: the workers of
 * the location take every lane before it first, so it is the lane of the largest organizations' last slots of a
 * window (docs/adr/0053-fair-lanes.md). A lane whose batches wait no longer is queued again.
 */
const MAX_WAITING_BATCHES = 10;
/**
 * How long a queue's first delayed batch may be overdue before the tick sees that no worker looks at it. In the
 * first lane's queue (whose workers pause only when the first lane's own reserve is full) it means no worker takes
 * anything: the tick queues nothing, its schedules wait unmoved, and each runs its latest slot once when a tick
 * queues again, as a BullMQ job scheduler did. In the later lanes' queue it means every worker is paused by its
 * admission: those lanes are saturated. Longer than a worker pauses to drain half its held slots; it bounds what
 * waits in Redis to a few seconds of slots.
 */
const MAX_OVERDUE_MS = 5_000;
/** A delayed job's score in BullMQ: its due time in milliseconds times 0x1000, plus a counter (getDelayedScore). */
const DELAYED_SCORE_PER_MS = 0x1000;
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
  /** The queue of a location's batch jobs of every lane but the first, with the lane as their priority. */
  slotsQueueOf: (location: string) => string;
  /** The queue of a location's batch jobs of the first lane (docs/adr/0064-first-lane-reserve.md). */
  firstLaneQueueOf: (location: string) => string;
  /** The options every batch job is added with (attempts, backoff, removal). */
  jobOptions: object;
  batchJobName: string;
}) {
  const { producer, schedules, log } = options;
  const { bounded } = producer;
  /** Locations where no worker takes anything, and those where some lanes are skipped: each logged once. */
  const saturated = new Set<string>();
  const skippingLanes = new Map<string, string>();
  /**
   * Per location, since when this process's ticks have reached Redis without failing. While Redis was away (paused,
   * restarting) no worker could promote a batch either: a batch overdue since before then waited for Redis, not for
   * a worker, and the slots missed meanwhile are late, not saturated.
   */
  const answeringSince = new Map<string, number>();
  const queuesOf = (location: string) => ({
    slotsQueue: producer.queue<BatchJobData>(options.slotsQueueOf(location)),
    firstQueue: producer.queue<BatchJobData>(options.firstLaneQueueOf(location)),
  });
  /** The lanes whose batches wait for a worker past the limit, or every lane when none is taken at all. */
  const saturatedLanes = async (location: string, now: number): Promise<number[] | 'all'> => {
    const { slotsQueue, firstQueue } = queuesOf(location);
    const firstDelayed = async (queue: typeof slotsQueue) =>
      (await producer.redis.zrange(queue.keys.delayed ?? '', '0', '0', 'WITHSCORES'))[1];
    const [laterScore, firstScore, counts, firstWaiting] = await Promise.all([
      bounded(() => firstDelayed(slotsQueue)),
      bounded(() => firstDelayed(firstQueue)),
      bounded(() => slotsQueue.getCountsPerPriority(LATER_LANES)),
      bounded(() => firstQueue.getWaitingCount()),
    ]);
    // A worker promotes delayed batches when it looks for work: one overdue, while Redis answered, means none looks.
    const overdue = (score: string | undefined) =>
      score !== undefined &&
      now - Math.max(Math.floor(Number(score) / DELAYED_SCORE_PER_MS), answeringSince.get(location) ?? now) >
        MAX_OVERDUE_MS;
    if (overdue(firstScore)) return 'all';
    const laterPaused = overdue(laterScore);
    const lanes = LANE_NUMBERS.filter((lane) =>
      lane === FIRST_LANE
        ? firstWaiting >= MAX_WAITING_BATCHES
        : laterPaused || (counts[String(lane)] ?? 0) >= MAX_WAITING_BATCHES,
    );
    return lanes.length === LANE_NUMBERS.length ? 'all' : lanes;
  };
  const logLanes = (location: string, lanes: readonly number[]) => {
    const key = lanes.join(',');
    if ((skippingLanes.get(location) ?? '') === key) return;
    if (key === '') log.info({ location }, 'the workers of this location take every lane again');
    else
      log.warn(
        { location, lanes },
        'the workers of this location are saturated: the slots of its busiest organizations are skipped',
      );
    if (key === '') skippingLanes.delete(location);
    else skippingLanes.set(location, key);
  };
  /** Queues the slots of `location` due within this tick's window as batch jobs, then moves their schedules on. */
  return async function tick(location: string, onSkipped: ConsumeOptions['onSkipped']): Promise<void> {
    try {
      await tickAnswered(location, onSkipped);
    } catch (error) {
      answeringSince.delete(location);
      throw error;
    }
  };

  async function tickAnswered(location: string, onSkipped: ConsumeOptions['onSkipped']): Promise<void> {
    const now = Date.now();
    const horizon = Math.floor(now / TICK_MS) * TICK_MS + LOOKAHEAD_MS;
    if (!(await bounded(() => schedules.claimTick(location, horizon)))) return;
    if (!answeringSince.has(location)) answeringSince.set(location, now);
    const { slotsQueue, firstQueue } = queuesOf(location);
    const skipLanes = await saturatedLanes(location, now);
    if (skipLanes === 'all') {
      if (!saturated.has(location))
        log.warn({ location }, 'the workers of this location are saturated: slots are skipped');
      saturated.add(location);
      return;
    }
    const wasSaturated = saturated.delete(location);
    if (wasSaturated) log.info({ location }, 'the workers of this location keep up again');
    logLanes(location, skipLanes);
    const lanes = createLaneCounter();
    for (;;) {
      const due = await bounded(() => schedules.due(location, horizon, now, lanes));
      const skipped = due.skipped.slice(0, MAX_SKIPS_REPORTED);
      const shed: DueSlot[] = [];
      for (const batch of due.batches) {
        if (skipLanes.includes(batch.lane)) {
          shed.push(...batch.slots);
          continue;
        }
        const delay = Math.max(0, (batch.slots[0]?.slotMs ?? now) - LEAD_MS - Date.now());
        const data: BatchJobData = { slots: batch.slots };
        const jobOptions = { ...options.jobOptions, jobId: batch.jobId, delay };
        await bounded(() =>
          batch.lane === FIRST_LANE
            ? firstQueue.add(options.batchJobName, data, jobOptions)
            : slotsQueue.add(options.batchJobName, data, { ...jobOptions, priority: batch.lane }),
        );
      }
      await bounded(due.commit);
      const reason = wasSaturated ? 'saturated' : 'late';
      // A slot some job claimed meanwhile (an add of an earlier tick that Redis ran late) is that job's to check.
      const unclaimed = await bounded(() => schedules.claimSlots(location, `skipped:${reason}`, skipped));
      if (unclaimed.length > 0) onSkipped?.(unclaimed, reason);
      const unqueued = await bounded(() => schedules.claimSlots(location, 'skipped:saturated', shed));
      if (unqueued.length > 0) onSkipped?.(unqueued, 'saturated');
      if (!due.more) return;
    }
  }
}
