import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { shortReason } from '../system/dependency-errors.js';
import { startPeriodic } from '../system/periodic.js';
import { deliveriesFor, dropReasonOf, isRetryable, retryDelayMs } from './job-retries.js';
import { queueLockOptions } from '../system/queue-locks.js';
import { createRedisSchedules, type DueSlot } from './redis-schedules.js';
import { createRedisProducer } from './redis-producer.js';
import { legacyJobSchedulers } from './legacy-job-schedulers.js';
import { createResultsPromotion } from './results-promotion.js';
import { createSlotTicker, TICK_AHEAD_MS, TICK_MS, type BatchJobData } from './slot-ticker.js';
import { scheduleId } from './schedules.js';
import { ResultAwaitingWriteError } from '../runs/result-awaiting-write-error.js';
import { SlotSupersededError } from '../runs/slot-superseded-error.js';
import {
  HOLD_LANES,
  type ConsumeOptions,
  type DeliveredRunJob,
  type HandedOverResult,
  type HoldLane,
  type RunConsumer,
  type RunJobData,
  type RunQueue,
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
/**
 * Batches of the first fair lane (every organization's first slots of a window) go to a queue of their own, taken by
 * a BullMQ worker that pauses only when the admission's reserve for them is full: a worker full of later lanes
 * still takes them at once (docs/adr/0064-first-lane-reserve.md).
 */
const firstLaneQueueOf = (location: string) => `${location}.slots-first`;
const RESULTS_JOB_NAME = 'results';
/** Checked runs whose write found the database away wait here, in jobs of their own, until it takes them. */
const resultsQueueOf = (location: string) => `${location}.results`;
/** Tries of a handover to Redis before the batch fails and its retry hands the results over again. */
const HANDOVER_ATTEMPTS = 3;
/** Jobs of waiting results written at once by a consumer: each goes through the worker's batched writer. */
const RESULTS_CONCURRENCY = 4;
/** How often a consumer looks for job schedulers of an earlier release to retire. */
const LEGACY_CHECK_MS = 60_000;
const BACKOFF_TYPE = 'capped-exponential';

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
  // Two connections. Producer calls (trigger, ticks, handovers) fail fast while Redis is away (redis-producer.ts).
  // Workers need maxRetriesPerRequest null: their blocking commands must wait for Redis rather than fail, and
  // BullMQ reconnects them by itself.
  const producer = createRedisProducer({ redisUrl: options.redisUrl, prefix, log: options.log });
  const { bounded } = producer;
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error: Error) =>
    options.log.debug({ reason: shortReason(error) }, 'run queue connection error'),
  );
  const queueFor = (name: string) => producer.queue<RunJobData | BatchJobData | ResultsJobData>(name);
  const consumers = new Set<{ close(): Promise<void> }>();
  const schedules = createRedisSchedules(producer.redis, prefix);
  const legacy = legacyJobSchedulers(producer);
  const retireLegacy = (location: string) =>
    legacy.retire(location, (id) => bounded(() => schedules.has(location, id)));
  const tick = createSlotTicker({
    producer,
    schedules,
    log: options.log,
    slotsQueueOf,
    firstLaneQueueOf,
    jobOptions,
    batchJobName: BATCH_JOB_NAME,
  });

  return {
    async enqueue(data) {
      await bounded(() => queueFor(data.location).add(JOB_NAME, data, { ...jobOptions, jobId: data.runId }));
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
      const jobs = await Promise.all(
        [location, firstLaneQueueOf(location), slotsQueueOf(location), resultsQueueOf(location)].map(jobsOf),
      );
      const slots = new Set<string>();
      for (const job of jobs.flat())
        for (const run of deliveredRuns(job))
          if (run.slot !== undefined)
            slots.add(`${scheduleId(run.data.organizationId, run.data.monitorId, location)}@${run.slot}`);
      // A tick queues the slots due before the end of its next window.
      return { slots, aheadMs: TICK_AHEAD_MS };
    },

    consume(locations, handler, consumeOptions: ConsumeOptions): RunConsumer {
      const { admission } = consumeOptions;
      const runOne = async (delivered: DeliveredRunJob) => {
        try {
          await handler(delivered);
        } catch (error) {
          if (isRetryable(error) || error instanceof SlotSupersededError) throw error;
          // Anything but an absent dependency would fail the same way again: no retry.
          throw new UnrecoverableError(shortReason(error));
        }
      };
      // Every slot and run this consumer takes is held by the admission until it leaves
      // (docs/adr/0044-one-door-per-concern.md). A job the admission has no room for goes back to the front of its
      // queue, for another consumer, and this one takes no more until the admission has room again; when all are
      // as full, the ticks shed and count what no worker takes. A saturated worker does not hoard a backlog.
      // The first lane's workers and the others pause and resume apart: the first lane has a reserve of its own.
      const takingWorkers: Record<HoldLane, Array<Worker<RunJobData> | Worker<BatchJobData>>> = {
        first: [],
        later: [],
      };
      const release = (count: number) => {
        admission.release(count);
        for (const lane of HOLD_LANES)
          if (admission.hasRoom(lane) && takingWorkers[lane].some((w) => w.isPaused()))
            for (const w of takingWorkers[lane]) void w.resume();
      };
      const superseded = () =>
        new SlotSupersededError('newer slots took its place in line: the worker is full');
      /** Holds a job's slots before it is opened, or hands it back unopened and pauses its lane (see above). */
      const admit = async (job: QueueJob, token: string | undefined, size: number, lane: HoldLane) => {
        if (admission.tryHold(size, superseded, lane)) return true;
        const workers = takingWorkers[lane];
        if (!workers.some((w) => w.isPaused())) for (const w of workers) void w.pause(true);
        await job.moveToWait(token);
        return false;
      };
      const writeResults = consumeOptions.writeResults;
      // Results checked but not yet handed to Redis (it was away too), by the id of their slot's job: the job's
      // retry hands them over instead of running their checks again.
      const unhanded = new Map<string, HandedOverResult>();
      const promotion = createResultsPromotion({
        promote: (location) =>
          bounded(() => queueFor(resultsQueueOf(location)).promoteJobs({ count: 1_000 })),
        log: options.log,
      });
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
       * Whose time had come means by now, not by one lock ago: the dead worker's lock may have been renewed
       * half a lock before it died, so the batch can come back 15 s after, and a slot due in between was sent.
       */
      const slotsToCheck = (job: Job<BatchJobData>, location: string): DueSlot[] => {
        if (job.stalledCounter <= (job.data.stalled ?? 0)) return job.data.slots;
        // A check never starts before its slot (runBatch waits for it), so a slot still to come was not sent.
        const startedBy = Date.now();
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
      const runBatch = async (
        job: Job<BatchJobData>,
        location: string,
        token: string | undefined,
        lane: HoldLane,
      ) => {
        if (!(await admit(job, token, job.data.slots.length, lane))) throw new WaitingError();
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
          release(job.data.slots.length - claimed.length);
        }
        // A batch that waited (its workers were full) sheds at once the slots whose next slot is due already.
        const now = Date.now();
        const slots = claimed.filter((slot) => {
          if (slot.everyMs === undefined || now < slot.slotMs + slot.everyMs) return true;
          shed.push(slot);
          release(1);
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
                promotion.back(location);
              } catch (error) {
                if (error instanceof ResultAwaitingWriteError && writeResults !== undefined) {
                  promotion.away(location);
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
              release(1);
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
      const runSingle = async (job: Job<RunJobData>, location: string, token: string | undefined) => {
        if (!(await admit(job, token, 1, 'later'))) throw new WaitingError();
        try {
          await checkSingle(job, location);
        } finally {
          release(1);
        }
      };
      const checkSingle = async (job: Job<RunJobData>, location: string) => {
        const delivered = deliveredJob(job);
        const slotOf = scheduledSlotOfJob(job);
        if (
          slotOf !== undefined &&
          (await bounded(() => schedules.claimSlots(location, delivered.id, [slotOf]))).length === 0
        )
          return;
        const waiting = unhanded.get(delivered.id);
        try {
          if (waiting !== undefined) return await handOver(location, new Map([[delivered.id, waiting]]));
          await runOne(delivered);
          promotion.back(location);
        } catch (error) {
          if (!(error instanceof ResultAwaitingWriteError) || writeResults === undefined) throw error;
          promotion.away(location);
          await handOver(location, new Map([[delivered.id, error.handedOver]]));
        }
      };
      const writeWaitingResults = async (job: Job<ResultsJobData>, location: string) => {
        try {
          await writeResults?.(job.data.results);
          promotion.back(location);
        } catch (error) {
          if (!isRetryable(error)) throw new UnrecoverableError(shortReason(error));
          promotion.away(location);
          throw error;
        }
      };

      // BullMQ takes jobs while the admission has room: it decides, not BullMQ's own limit.
      const workerOptions = {
        connection,
        prefix,
        concurrency: Math.max(1, admission.limits.heldSlots),
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
        const runs = new Worker<RunJobData>(
          location,
          (job, token) => runSingle(job, location, token),
          workerOptions,
        );
        const slots = new Worker<BatchJobData>(
          slotsQueueOf(location),
          (job, token) => runBatch(job, location, token, 'later'),
          workerOptions,
        );
        const firstSlots = new Worker<BatchJobData>(
          firstLaneQueueOf(location),
          (job, token) => runBatch(job, location, token, 'first'),
          workerOptions,
        );
        takingWorkers.later.push(runs, slots);
        takingWorkers.first.push(firstSlots);
        const results = new Worker<ResultsJobData>(
          resultsQueueOf(location),
          (job) => writeWaitingResults(job, location),
          {
            ...workerOptions,
            concurrency: RESULTS_CONCURRENCY,
          },
        );
        return [runs, slots, firstSlots, results].map((worker) => watch(worker, location));
      });
      // Every consumer of a location ticks it; the tick's claim in Redis lets one of them do it each period.
      const periodic = locations.flatMap((location) => {
        const warn = (what: string) => (error: unknown) =>
          options.log.warn({ reason: shortReason(error), location }, what);
        void retireLegacy(location).catch(warn('retiring old job schedulers failed'));
        return [
          startPeriodic(
            () => tick(location, consumeOptions.onSkipped),
            TICK_MS,
            warn('run schedule tick failed'),
          ),
          startPeriodic(
            () => retireLegacy(location),
            LEGACY_CHECK_MS,
            warn('retiring old job schedulers failed'),
          ),
        ];
      });
      const consumer = {
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
      connection.disconnect();
      await producer.close();
    },
  };
}
