import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  DependencyUnavailableError,
  isRedisUnavailable,
  shortReason,
  withDeadline,
} from '../system/dependency-errors.js';
import { startPeriodic } from '../system/periodic.js';
import { deliveriesFor, dropReasonOf, isRetryable, retryDelayMs } from './job-retries.js';
import { createPlaces } from '../system/places.js';
import { queueLockOptions } from '../system/queue-locks.js';
import { createRedisSchedules, type DueSlot } from './redis-schedules.js';
import { scheduleId } from './schedules.js';
import { ResultAwaitingWriteError } from '../runs/result-awaiting-write-error.js';
import { SlotSupersededError } from '../runs/slot-superseded-error.js';
import type {
  ConsumeOptions,
  DeliveredRunJob,
  HandedOverResult,
  ListedSchedule,
  RunConsumer,
  RunJobData,
  RunQueue,
  RunSchedule,
} from '../runs/run-queue.js';

export interface BullmqRunQueueOptions {
  redisUrl: string;
  /**
   * Redis key prefix. BullMQ refuses ":" in a queue name, so the queue `runs:<location>` of DESIGN.md is the
   * BullMQ queue `<location>` under the prefix `runs` (keys `runs:<location>:*`). Tests pass their own.
   */
  prefix?: string;
  /**
   * Where a consumer's failed job (the handler threw, as when a run's result could not be written) and a
   * worker's connection errors are written; BullMQ only keeps the reason in Redis.
   */
  log: Logger;
  /** RUN_RECORD_RETRY_SECONDS: how long a job whose handler finds a dependency away is delivered again. */
  retrySeconds: number;
}

const JOB_NAME = 'run';
const BATCH_JOB_NAME = 'slots';
/**
 * Batch jobs go to a queue of their own, `<location>.slots` (a location is a DNS label, so never holds a dot):
 * a worker of an earlier release, which knows only run jobs, never takes one during a rolling upgrade.
 */
const slotsQueueOf = (location: string) => `${location}.slots`;
const RESULTS_JOB_NAME = 'results';
/** Checked runs whose write found the database away wait here, in jobs of their own, until it takes them. */
const resultsQueueOf = (location: string) => `${location}.results`;
/** Tries of a handover to Redis before the batch fails and its retry hands the results over again. */
const HANDOVER_ATTEMPTS = 3;
/** Jobs of waiting results written at once by a consumer: each goes through the worker's batched writer. */
const RESULTS_CONCURRENCY = 4;
/** A consumer ticks its locations this often: each tick queues the slots due up to LOOKAHEAD_MS ahead. */
const TICK_MS = 1_000;
const LOOKAHEAD_MS = 2_000;
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
/**
 * A stalled batch comes back one lock (30 s) and a stalled check after its worker died: a slot due before
 * this long ago was due while that worker still held it.
 */
const STALLED_AFTER_MS = queueLockOptions.lockDuration;
/** How often a consumer looks for job schedulers of an earlier release to retire. */
const LEGACY_CHECK_MS = 60_000;
const BACKOFF_TYPE = 'capped-exponential';
// A producer call (trigger, schedule writes) fails with DependencyUnavailableError after this, never hangs:
// short enough for the API to answer within 5 s while Redis is paused (docs/operations.md).
const PRODUCER_DEADLINE_MS = 3_000;
// A hash since the schedule counts joined it; the string marker of earlier releases had another name.
const SCHEDULES_MARKER = 'meerkat:schedules-counted';

// A run's own failure is recorded on its row; a job fails only when the infrastructure did, and then retries.
// A completed job is removed at once: its run is the record, and keeping jobs costs Redis work on every
// completion (a trim of the completed set by age and count); failed jobs stay a week for inspection.
function jobOptionsFor(retrySeconds: number) {
  return {
    attempts: deliveriesFor(retrySeconds),
    backoff: { type: BACKOFF_TYPE },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600 },
  } as const;
}

/** Scheduler jobs are named `repeat:<scheduler id>:<slot millis>`: the millis identify the slot. */
function slotOfJob(job: Pick<Job, 'id'>): string | undefined {
  const id = job.id ?? '';
  return id.startsWith('repeat:') ? id.slice(id.lastIndexOf(':') + 1) : undefined;
}

/** The schedule and slot of a scheduled single job (`repeat:<schedule id>:<slot millis>`). */
function scheduledSlotOfJob(job: Pick<Job, 'id'>): { id: string; slotMs: number } | undefined {
  const slot = slotOfJob(job);
  if (slot === undefined) return undefined;
  const id = job.id ?? '';
  return { id: id.slice('repeat:'.length, id.lastIndexOf(':')), slotMs: Number(slot) };
}

/** What a batch job carries: slots of several schedules of its location, each started at its own time. */
interface BatchJobData {
  slots: DueSlot[];
  /** The job's stalled count when it last failed: a count above it means its worker died since. */
  stalled?: number;
}

/** What a results job carries: checked runs of its location whose write waits for the database. */
interface ResultsJobData {
  results: HandedOverResult[];
}

type QueueJob = Job<RunJobData | BatchJobData | ResultsJobData>;

const isBatch = (job: QueueJob): job is Job<BatchJobData> => job.name === BATCH_JOB_NAME;
const isResults = (job: QueueJob): job is Job<ResultsJobData> => job.name === RESULTS_JOB_NAME;

/** A slot of a batch as its own job: the id, slot and due time of the job `enqueueSlot` makes for it. */
function deliveredSlot(slot: DueSlot, delivery: number): DeliveredRunJob {
  return {
    id: `repeat:${slot.id}:${slot.slotMs}`,
    data: slot.data,
    slot: String(slot.slotMs),
    dueAt: new Date(slot.slotMs),
    delivery,
    ...(slot.everyMs === undefined ? {} : { everyMs: slot.everyMs }),
  };
}

/**
 * Which delivery of its slots a batch job is: its retries after a dependency was away and its redeliveries after
 * a worker died, not the times an over-full worker handed it back unopened (attemptsStarted counts those).
 */
const deliveryOf = (job: Job<BatchJobData>) => 1 + job.attemptsMade + job.stalledCounter;

/** The runs a job carries, as the handler sees them: one, or each slot of a batch. */
function deliveredRuns(job: QueueJob): DeliveredRunJob[] {
  if (isResults(job))
    return job.data.results.map(({ organizationId, monitorId, location, slot }) => ({
      id: job.id ?? '',
      data: { organizationId, monitorId, location },
      slot,
      dueAt: new Date(Number(slot)),
      delivery: Math.max(1, job.attemptsStarted),
    }));
  if (isBatch(job)) return job.data.slots.map((slot) => deliveredSlot(slot, deliveryOf(job)));
  return [deliveredJob(job as Job<RunJobData>)];
}

function deliveredJob(job: Job<RunJobData>): DeliveredRunJob {
  const slot = slotOfJob(job);
  return {
    id: job.id ?? '',
    data: job.data,
    slot,
    // A scheduled job is due at its slot; an enqueued one as soon as it was added.
    dueAt: new Date(slot === undefined ? job.timestamp : Number(slot)),
    delivery: Math.max(1, job.attemptsStarted),
  };
}

export function createBullmqRunQueue(options: BullmqRunQueueOptions): RunQueue {
  const prefix = options.prefix ?? 'runs';
  const jobOptions = jobOptionsFor(options.retrySeconds);
  // Two connections. Producer calls (trigger, schedule writes) fail fast while Redis is away: no offline queue,
  // one retry, and a deadline on each call. Workers need maxRetriesPerRequest null: their blocking commands must
  // wait for Redis rather than fail, and BullMQ reconnects them by itself.
  const producer = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  producer.on('error', (error: Error) =>
    options.log.debug({ reason: shortReason(error) }, 'run queue producer connection error'),
  );
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error: Error) =>
    options.log.debug({ reason: shortReason(error) }, 'run queue connection error'),
  );
  const queues = new Map<string, Queue<RunJobData | BatchJobData | ResultsJobData>>();
  const consumers = new Set<{ close(): Promise<void> }>();
  const schedules = createRedisSchedules(producer, prefix);
  // The producer connection has no offline queue: a call made while it first connects waits for it, within the
  // same deadline; one made while it is reconnecting (Redis went away) fails at once.
  const ready = () => {
    if (producer.status === 'ready') return Promise.resolve();
    if (['reconnecting', 'close', 'end'].includes(producer.status))
      return Promise.reject(new DependencyUnavailableError('redis', `not connected (${producer.status})`));
    return new Promise<void>((resolve) => producer.once('ready', () => resolve()));
  };
  const bounded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await withDeadline('redis', PRODUCER_DEADLINE_MS, async () => {
        await ready();
        return call();
      });
    } catch (error) {
      if (error instanceof DependencyUnavailableError || !isRedisUnavailable(error)) throw error;
      throw new DependencyUnavailableError('redis', shortReason(error), { cause: error });
    }
  };
  const markerKey = `${prefix}:${SCHEDULES_MARKER}`;

  const queueFor = (location: string): Queue<RunJobData | BatchJobData | ResultsJobData> => {
    let queue = queues.get(location);
    if (queue === undefined) {
      queue = new Queue<RunJobData | BatchJobData | ResultsJobData>(location, {
        connection: producer,
        prefix,
      });
      queue.on('error', (error) =>
        options.log.debug({ reason: shortReason(error), location }, 'run queue error'),
      );
      queues.set(location, queue);
    }
    return queue;
  };

  // Job schedulers of BullMQ itself, written by releases before the batch jobs: listed as not current, so a
  // reconcile writes the schedule to our keys too; a consumer of this release then retires them.
  const legacySchedulers = (location: string) => bounded(() => queueFor(location).getJobSchedulers(0, -1));

  const listAll = async (location: string): Promise<ListedSchedule[]> => {
    const listed = new Map<string, ListedSchedule>();
    for (const s of await bounded(() => schedules.list(location)))
      listed.set(s.id, {
        id: s.id,
        everyMs: s.everyMs,
        offsetMs: s.offsetMs,
        version: s.data.version,
        current: !s.lost,
        ...(s.lost ? { lost: true } : {}),
      });
    for (const s of await legacySchedulers(location)) {
      const id = s.id ?? s.key;
      const ours = listed.get(id);
      listed.set(id, {
        id,
        everyMs: ours?.everyMs ?? s.every ?? 0,
        offsetMs: ours?.offsetMs ?? s.offset ?? 0,
        version: ours?.version ?? (s.template?.data as RunJobData | undefined)?.version,
        current: false,
      });
    }
    return [...listed.values()];
  };

  /**
   * Removes the job schedulers of an earlier release whose schedule is in our keys. Done by a consumer, which
   * ticks those keys, never by the scheduler: a scheduler upgraded before the workers leaves the old schedulers
   * to the old workers, so no slot waits for a worker able to run it.
   */
  const retireLegacySchedulers = async (location: string) => {
    for (const s of await legacySchedulers(location)) {
      const id = s.id ?? s.key;
      if (await bounded(() => schedules.has(location, id)))
        await bounded(() => queueFor(location).removeJobScheduler(id));
    }
  };

  const saturated = new Set<string>();
  /** Queues the slots of `location` due within this tick's window as batch jobs, then moves their schedules on. */
  const tick = async (location: string, onSkipped: ConsumeOptions['onSkipped']) => {
    const now = Date.now();
    const horizon = Math.floor(now / TICK_MS) * TICK_MS + LOOKAHEAD_MS;
    if (!(await bounded(() => schedules.claimTick(location, horizon)))) return;
    const slotsQueue = queueFor(slotsQueueOf(location));
    // Delayed ones count too: while every worker of the location is paused, none promotes them when due.
    const waiting = await bounded(() => slotsQueue.getJobCountByTypes('waiting', 'delayed'));
    if (waiting >= MAX_WAITING_BATCHES) {
      if (!saturated.has(location))
        options.log.warn(
          { location, waiting },
          'the workers of this location are saturated: slots are skipped',
        );
      saturated.add(location);
      return;
    }
    const wasSaturated = saturated.delete(location);
    if (wasSaturated) options.log.info({ location }, 'the workers of this location keep up again');
    for (;;) {
      const due = await bounded(() => schedules.due(location, horizon, now));
      const skipped = due.skipped.slice(0, MAX_SKIPS_REPORTED);
      for (const batch of due.batches) {
        const delay = Math.max(0, (batch.slots[0]?.slotMs ?? now) - LEAD_MS - Date.now());
        const data: BatchJobData = { slots: batch.slots };
        await bounded(() =>
          slotsQueue.add(BATCH_JOB_NAME, data, { ...jobOptions, jobId: batch.jobId, delay }),
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

  return {
    async enqueue(data) {
      await bounded(() => queueFor(data.location).add(JOB_NAME, data, { ...jobOptions, jobId: data.runId }));
    },

    async upsertSchedule(schedule: RunSchedule, upsertOptions = {}) {
      await bounded(() => schedules.upsert(schedule, upsertOptions.firstSlotAfterMs ?? Date.now()));
    },

    async enqueueSlot(schedule, slotMs) {
      const jobId = deliveredSlot({ id: schedule.id, slotMs, data: schedule.data }, 1).id;
      // A slot still to come waits for its time, as a batch's does.
      const delay = Math.max(0, slotMs - Date.now());
      await bounded(() =>
        queueFor(schedule.location).add(JOB_NAME, schedule.data, { ...jobOptions, jobId, delay }),
      );
    },

    async slotsInFlight(location) {
      const unfinished = ['waiting', 'delayed', 'active', 'prioritized'] as const;
      const jobsOf = (name: string) => bounded(() => queueFor(name).getJobs([...unfinished]));
      const [runs, batches, results] = await Promise.all([
        jobsOf(location),
        jobsOf(slotsQueueOf(location)),
        jobsOf(resultsQueueOf(location)),
      ]);
      const slots = new Set<string>();
      for (const job of [...runs, ...batches, ...results])
        for (const run of deliveredRuns(job))
          if (run.slot !== undefined)
            slots.add(`${scheduleId(run.data.organizationId, run.data.monitorId, location)}@${run.slot}`);
      // A tick queues the slots due before the end of its next window.
      return { slots, aheadMs: TICK_MS + LOOKAHEAD_MS };
    },

    async removeSchedule(location, scheduleId) {
      await bounded(() => schedules.remove(location, scheduleId));
      await bounded(() => queueFor(location).removeJobScheduler(scheduleId));
    },

    async listScheduleIds(location) {
      return (await listAll(location)).map((s) => s.id);
    },

    listSchedules: listAll,

    async missingSchedules(locations) {
      return bounded(() => schedules.missing(markerKey, locations));
    },

    async markSchedulesPresent(locations) {
      await bounded(() => schedules.count(markerKey, locations, true));
    },

    async recountSchedules(locations) {
      await bounded(() => schedules.count(markerKey, locations, false));
    },

    consume(locations, handler, consumeOptions: ConsumeOptions): RunConsumer {
      const places = createPlaces(consumeOptions.concurrency);
      const runOne = async (delivered: DeliveredRunJob) => {
        try {
          await places.run(() => handler(delivered));
        } catch (error) {
          if (isRetryable(error) || error instanceof SlotSupersededError) throw error;
          // Anything but an absent dependency would fail the same way again: no retry.
          throw new UnrecoverableError(shortReason(error));
        }
      };
      // The slots of the batches this consumer holds and has not finished (docs/adr/0040-overload-is-shed.md).
      // At maxHeldSlots a new batch makes room by shedding the oldest slots waiting for a check place (the largest
      // organization's first); when none waits, the batch goes back and the consumer takes no more until it
      // holds half of it, leaving the batches to other consumers or, when all are as full, to the ticks, which
      // shed and count what no worker takes. A saturated worker does not hoard a backlog.
      const maxHeld = consumeOptions.maxHeldSlots ?? 2 * consumeOptions.concurrency;
      let held = 0;
      const slotWorkers: Array<Worker<BatchJobData>> = [];
      const holdSlots = (count: number) => {
        held += count;
        if (held <= maxHeld / 2 && slotWorkers.some((w) => w.isPaused()))
          for (const w of slotWorkers) void w.resume();
      };
      /**
       * Holds a batch's slots before it is opened, making room as above, or hands it back unopened (to the front
       * of the queue, for another consumer). A batch larger than the bound alone is taken by a consumer holding
       * nothing. Slots shed for it leave `held` as their checks fail, a moment later.
       */
      const admit = async (job: Job<BatchJobData>, token: string | undefined): Promise<boolean> => {
        const size = job.data.slots.length;
        const over = held + size - maxHeld;
        if (held === 0 || over <= 0 || (consumeOptions.shedWaiting?.(over) ?? 0) === over) {
          holdSlots(size);
          return true;
        }
        if (!slotWorkers.some((w) => w.isPaused())) for (const w of slotWorkers) void w.pause(true);
        await job.moveToWait(token);
        return false;
      };
      const writeResults = consumeOptions.writeResults;
      // Results checked but not yet handed to Redis (it was away too), by the id of their slot's job: the job's
      // retry hands them over instead of running their checks again.
      const unhanded = new Map<string, HandedOverResult>();
      /**
       * Keeps checked results in Redis until the database takes them, trying a few times (an add that timed out
       * may have been kept: the job id, from the slots' job ids, makes a second add of the same results a no-op).
       * A failure leaves them in `unhanded` for the job's retry.
       */
      const handOver = async (location: string, results: Map<string, HandedOverResult>) => {
        for (const [slotJobId, result] of results) unhanded.set(slotJobId, result);
        const data: ResultsJobData = { results: [...results.values()] };
        const hash = createHash('sha1');
        for (const slotJobId of results.keys()) hash.update(`${slotJobId}\n`);
        const jobId = `results:${location}:${hash.digest('hex')}`;
        for (let attempt = 1; ; attempt += 1) {
          try {
            await bounded(() =>
              queueFor(resultsQueueOf(location)).add(RESULTS_JOB_NAME, data, { ...jobOptions, jobId }),
            );
            break;
          } catch (error) {
            if (attempt >= HANDOVER_ATTEMPTS || !isRetryable(error)) throw error;
            await sleep(retryDelayMs(attempt));
          }
        }
        for (const slotJobId of results.keys()) unhanded.delete(slotJobId);
      };
      /**
       * The slots of a batch to check now. A batch that comes again because the worker holding it died (BullMQ
       * counts it stalled) may have sent any of its checks whose time had come: those are reported skipped,
       * never checked twice; a batch retried because a dependency was away holds only slots not checked.
       */
      const slotsToCheck = (job: Job<BatchJobData>, location: string): DueSlot[] => {
        if (job.stalledCounter <= (job.data.stalled ?? 0)) return job.data.slots;
        const startedBy = Date.now() - STALLED_AFTER_MS;
        const lost = job.data.slots.filter((slot) => slot.slotMs <= startedBy);
        if (lost.length > 0) {
          options.log.warn({ location, jobId: job.id, slots: lost.length }, 'slots of a dead worker skipped');
          consumeOptions.onSkipped?.(lost, 'worker_lost');
        }
        return job.data.slots.filter((slot) => slot.slotMs > startedBy);
      };
      // Each slot starts at its own time and fails on its own. Slots that found a dependency away stay in the
      // job, which fails and comes again after the backoff with those alone; the others are done. Slots checked
      // whose write found the database away are done too: their results wait in a results job.
      const runBatch = async (job: Job<BatchJobData>, location: string, token: string | undefined) => {
        if (!(await admit(job, token))) throw new WaitingError();
        const retry: DueSlot[] = [];
        let retryError: unknown;
        const checked = new Map<string, HandedOverResult>();
        const shed: DueSlot[] = [];
        let claimed: DueSlot[] = [];
        try {
          // Each slot is checked by the one job that claims it first: a second batch with the same slot (a tick's
          // add that Redis ran after the tick had given up on it and queued the slot again) leaves it alone.
          claimed = await bounded(() =>
            schedules.claimSlots(location, job.id ?? '', slotsToCheck(job, location)),
          );
        } finally {
          holdSlots(claimed.length - job.data.slots.length);
        }
        // A batch that waited (its workers were full) sheds at once the slots whose next slot is due already.
        const now = Date.now();
        const slots = claimed.filter((slot) => {
          if (slot.everyMs === undefined || now < slot.slotMs + slot.everyMs) return true;
          shed.push(slot);
          holdSlots(-1);
          return false;
        });
        await Promise.all(
          slots.map(async (slot) => {
            try {
              const delivered = deliveredSlot(slot, deliveryOf(job));
              const waiting = unhanded.get(delivered.id);
              if (waiting !== undefined) return void checked.set(delivered.id, waiting);
              // A timer may fire a millisecond before the wall clock reaches the slot: never start early.
              for (let wait = slot.slotMs - Date.now(); wait > 0; wait = slot.slotMs - Date.now())
                await sleep(wait);
              try {
                await runOne(delivered);
              } catch (error) {
                if (error instanceof ResultAwaitingWriteError && writeResults !== undefined) {
                  checked.set(delivered.id, error.handedOver);
                  return;
                }
                if (error instanceof SlotSupersededError) return void shed.push(slot);
                if (!(error instanceof UnrecoverableError)) {
                  retry.push(slot);
                  retryError ??= error;
                  return;
                }
                const { organizationId, monitorId } = slot.data;
                const ids = {
                  organizationId,
                  monitorId,
                  location,
                  jobId: delivered.id,
                  attempt: delivered.delivery,
                };
                options.log.error({ ...ids, reason: 'error', err: error }, 'run job dropped');
                consumeOptions.onDropped?.(delivered, 'error');
              }
            } finally {
              holdSlots(-1);
            }
          }),
        );
        if (shed.length > 0) consumeOptions.onSkipped?.(shed, 'shed');
        if (checked.size > 0)
          try {
            await handOver(location, checked);
          } catch (error) {
            retryError ??= error;
            retry.push(...job.data.slots.filter((slot) => checked.has(deliveredSlot(slot, 1).id)));
          }
        if (retry.length === 0) return;
        await job.updateData({ slots: retry, stalled: job.stalledCounter });
        throw retryError;
      };
      // A single slot or manual run: a checked result whose write waits is handed over as a batch's are.
      const runSingle = async (job: Job<RunJobData>, location: string) => {
        const delivered = deliveredJob(job);
        const slotOf = scheduledSlotOfJob(job);
        if (
          slotOf !== undefined &&
          (await bounded(() => schedules.claimSlots(location, delivered.id, [slotOf]))).length === 0
        )
          return;
        const waiting = unhanded.get(delivered.id);
        try {
          if (waiting === undefined) return await runOne(delivered);
          await handOver(location, new Map([[delivered.id, waiting]]));
        } catch (error) {
          if (!(error instanceof ResultAwaitingWriteError) || writeResults === undefined) throw error;
          await handOver(location, new Map([[delivered.id, error.handedOver]]));
        }
      };
      const writeWaitingResults = async (job: Job<ResultsJobData>) => {
        try {
          await writeResults?.(job.data.results);
        } catch (error) {
          if (isRetryable(error)) throw error;
          throw new UnrecoverableError(shortReason(error));
        }
      };

      const workerOptions = {
        connection,
        prefix,
        concurrency: consumeOptions.concurrency,
        ...queueLockOptions,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
      };
      const watch = (
        worker: Worker<RunJobData> | Worker<BatchJobData> | Worker<ResultsJobData>,
        location: string,
      ) => {
        worker.on('failed', (job: QueueJob | undefined, error: Error) => {
          const attempts = { attempt: job?.attemptsMade, of: job?.opts.attempts };
          const final =
            job === undefined ||
            error instanceof UnrecoverableError ||
            job.attemptsMade >= (job.opts.attempts ?? 1);
          const reason = error instanceof UnrecoverableError ? 'error' : dropReasonOf(error);
          for (const delivered of job === undefined ? [undefined] : deliveredRuns(job)) {
            const { organizationId, monitorId, runId } = delivered?.data ?? {};
            const ids = { organizationId, monitorId, location, runId, jobId: delivered?.id, ...attempts };
            if (!final) {
              options.log.warn({ ...ids, reason: shortReason(error) }, 'run job will be retried');
              continue;
            }
            options.log.error({ ...ids, reason, err: error }, 'run job dropped');
            if (delivered !== undefined) consumeOptions.onDropped?.(delivered, reason);
          }
        });
        // Without a listener an 'error' event would end the process; BullMQ reconnects by itself.
        worker.on('error', (error: Error) =>
          options.log.warn({ reason: shortReason(error), location }, 'run queue worker error'),
        );
        return worker;
      };
      const workers = locations.flatMap((location) => {
        const runs = new Worker<RunJobData>(location, (job) => runSingle(job, location), workerOptions);
        const slots = new Worker<BatchJobData>(
          slotsQueueOf(location),
          (job, token) => runBatch(job, location, token),
          workerOptions,
        );
        slotWorkers.push(slots);
        const results = new Worker<ResultsJobData>(resultsQueueOf(location), writeWaitingResults, {
          ...workerOptions,
          concurrency: RESULTS_CONCURRENCY,
        });
        return [watch(runs, location), watch(slots, location), watch(results, location)];
      });
      // Every consumer of a location ticks it; the tick's claim in Redis lets one of them do it each period.
      const periodic = locations.flatMap((location) => {
        const warn = (what: string) => (error: unknown) =>
          options.log.warn({ reason: shortReason(error), location }, what);
        void retireLegacySchedulers(location).catch(warn('retiring old job schedulers failed'));
        return [
          startPeriodic(
            () => tick(location, consumeOptions.onSkipped),
            TICK_MS,
            warn('run schedule tick failed'),
          ),
          startPeriodic(
            () => retireLegacySchedulers(location),
            LEGACY_CHECK_MS,
            warn('retiring old job schedulers failed'),
          ),
        ];
      });
      const consumer = {
        heldSlots: () => held,
        async close() {
          await Promise.all(periodic.map((p) => p.stop()));
          await Promise.all(workers.map((w) => w.close()));
          consumers.delete(consumer);
        },
      };
      consumers.add(consumer);
      return consumer;
    },

    async close() {
      await Promise.all([...consumers].map((c) => c.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      connection.disconnect();
      producer.disconnect();
    },
  };
}
