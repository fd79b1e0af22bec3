import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
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
import type {
  ConsumeOptions,
  DeliveredRunJob,
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
/** How often a consumer looks for job schedulers of an earlier release to retire. */
const LEGACY_CHECK_MS = 60_000;
const BACKOFF_TYPE = 'capped-exponential';
// A producer call (trigger, schedule writes) fails with DependencyUnavailableError after this, never hangs:
// short enough for the API to answer within 5 s while Redis is paused (docs/operations.md).
const PRODUCER_DEADLINE_MS = 3_000;
const SCHEDULES_MARKER = 'meerkat:schedules-reconciled';

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

/** What a batch job carries: slots of several schedules of its location, each started at its own time. */
interface BatchJobData {
  slots: DueSlot[];
}

type QueueJob = Job<RunJobData | BatchJobData>;

const isBatch = (job: QueueJob): job is Job<BatchJobData> => job.name === BATCH_JOB_NAME;

/** A slot of a batch as its own job: the id, slot and due time of the job `enqueueSlot` makes for it. */
function deliveredSlot(slot: DueSlot, delivery: number): DeliveredRunJob {
  return {
    id: `repeat:${slot.id}:${slot.slotMs}`,
    data: slot.data,
    slot: String(slot.slotMs),
    dueAt: new Date(slot.slotMs),
    delivery,
  };
}

/** The runs a job carries, as the handler sees them: one, or each slot of a batch. */
function deliveredRuns(job: QueueJob): DeliveredRunJob[] {
  if (isBatch(job))
    return job.data.slots.map((slot) => deliveredSlot(slot, Math.max(1, job.attemptsStarted)));
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
  const queues = new Map<string, Queue<RunJobData | BatchJobData>>();
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

  const queueFor = (location: string): Queue<RunJobData | BatchJobData> => {
    let queue = queues.get(location);
    if (queue === undefined) {
      queue = new Queue<RunJobData | BatchJobData>(location, { connection: producer, prefix });
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
        current: true,
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
  const tick = async (location: string) => {
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
    if (saturated.delete(location))
      options.log.info({ location }, 'the workers of this location keep up again');
    for (;;) {
      const due = await bounded(() => schedules.due(location, horizon, now));
      for (const batch of due.batches) {
        const delay = Math.max(0, (batch.slots[0]?.slotMs ?? now) - LEAD_MS - Date.now());
        const data: BatchJobData = { slots: batch.slots };
        await bounded(() =>
          slotsQueue.add(BATCH_JOB_NAME, data, { ...jobOptions, jobId: batch.jobId, delay }),
        );
      }
      await bounded(due.commit);
      if (!due.more) return;
    }
  };

  return {
    async enqueue(data) {
      await bounded(() => queueFor(data.location).add(JOB_NAME, data, { ...jobOptions, jobId: data.runId }));
    },

    async upsertSchedule(schedule: RunSchedule) {
      await bounded(() => schedules.upsert(schedule, Date.now()));
    },

    async enqueueSlot(schedule, slotMs) {
      const jobId = deliveredSlot({ id: schedule.id, slotMs, data: schedule.data }, 1).id;
      await bounded(() => queueFor(schedule.location).add(JOB_NAME, schedule.data, { ...jobOptions, jobId }));
    },

    async removeSchedule(location, scheduleId) {
      await bounded(() => schedules.remove(location, scheduleId));
      await bounded(() => queueFor(location).removeJobScheduler(scheduleId));
    },

    async listScheduleIds(location) {
      return (await listAll(location)).map((s) => s.id);
    },

    listSchedules: listAll,

    async schedulesPresent() {
      return (await bounded(() => producer.exists(markerKey))) === 1;
    },

    async markSchedulesPresent() {
      await bounded(() => producer.set(markerKey, new Date().toISOString()));
    },

    consume(locations, handler, consumeOptions: ConsumeOptions): RunConsumer {
      const places = createPlaces(consumeOptions.concurrency);
      const runOne = async (delivered: DeliveredRunJob) => {
        try {
          await places.run(() => handler(delivered));
        } catch (error) {
          if (isRetryable(error)) throw error;
          // Anything but an absent dependency would fail the same way again: no retry.
          throw new UnrecoverableError(shortReason(error));
        }
      };
      // The slots of the batches this consumer holds and has not finished. Past twice its places it takes no
      // more batches, leaving them to other consumers (or, when all are as busy, to the saturation the ticks
      // see), and takes them again below its places: a saturated worker does not hoard a backlog.
      let held = 0;
      const slotWorkers: Array<Worker<BatchJobData>> = [];
      const holdSlots = (count: number) => {
        held += count;
        const paused = slotWorkers.some((w) => w.isPaused());
        if (!paused && held >= 2 * consumeOptions.concurrency)
          for (const w of slotWorkers) void w.pause(true);
        else if (paused && held < consumeOptions.concurrency) for (const w of slotWorkers) void w.resume();
      };
      // Each slot starts at its own time and fails on its own. Slots that found a dependency away stay in the
      // job, which fails and comes again after the backoff with those alone; the others are done.
      const runBatch = async (job: Job<BatchJobData>, location: string) => {
        const retry: DueSlot[] = [];
        let retryError: unknown;
        holdSlots(job.data.slots.length);
        await Promise.all(
          job.data.slots.map(async (slot) => {
            try {
              // A timer may fire a millisecond before the wall clock reaches the slot: never start early.
              for (let wait = slot.slotMs - Date.now(); wait > 0; wait = slot.slotMs - Date.now())
                await sleep(wait);
              const delivered = deliveredSlot(slot, Math.max(1, job.attemptsStarted));
              try {
                await runOne(delivered);
              } catch (error) {
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
        if (retry.length === 0) return;
        await job.updateData({ slots: retry });
        throw retryError;
      };

      const workerOptions = {
        connection,
        prefix,
        concurrency: consumeOptions.concurrency,
        ...queueLockOptions,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
      };
      const watch = (worker: Worker<RunJobData> | Worker<BatchJobData>, location: string) => {
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
        const runs = new Worker<RunJobData>(location, (job) => runOne(deliveredJob(job)), workerOptions);
        const slots = new Worker<BatchJobData>(
          slotsQueueOf(location),
          (job) => runBatch(job, location),
          workerOptions,
        );
        slotWorkers.push(slots);
        return [watch(runs, location), watch(slots, location)];
      });
      // Every consumer of a location ticks it; the tick's claim in Redis lets one of them do it each period.
      const periodic = locations.flatMap((location) => {
        const warn = (what: string) => (error: unknown) =>
          options.log.warn({ reason: shortReason(error), location }, what);
        void retireLegacySchedulers(location).catch(warn('retiring old job schedulers failed'));
        return [
          startPeriodic(() => tick(location), TICK_MS, warn('run schedule tick failed')),
          startPeriodic(
            () => retireLegacySchedulers(location),
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
      await Promise.all([...queues.values()].map((q) => q.close()));
      connection.disconnect();
      producer.disconnect();
    },
  };
}
