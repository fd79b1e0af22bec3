import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  DependencyUnavailableError,
  isRedisUnavailable,
  shortReason,
  withDeadline,
} from '../system/dependency-errors.js';
import { deliveriesFor, dropReasonOf, isRetryable, retryDelayMs } from './job-retries.js';
import type {
  ConsumeOptions,
  DeliveredRunJob,
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
const BACKOFF_TYPE = 'capped-exponential';
// A producer call (trigger, schedule writes) fails with DependencyUnavailableError after this, never hangs.
const PRODUCER_DEADLINE_MS = 5_000;
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
  const queues = new Map<string, Queue<RunJobData>>();
  const consumers = new Set<Worker<RunJobData>>();
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

  const queueFor = (location: string): Queue<RunJobData> => {
    let queue = queues.get(location);
    if (queue === undefined) {
      queue = new Queue<RunJobData>(location, { connection: producer, prefix });
      queue.on('error', (error) =>
        options.log.debug({ reason: shortReason(error), location }, 'run queue error'),
      );
      queues.set(location, queue);
    }
    return queue;
  };

  const readSchedules = (location: string) => bounded(() => queueFor(location).getJobSchedulers(0, -1));

  return {
    async enqueue(data) {
      await bounded(() => queueFor(data.location).add(JOB_NAME, data, { ...jobOptions, jobId: data.runId }));
    },

    async upsertSchedule(schedule: RunSchedule) {
      await bounded(() =>
        queueFor(schedule.location).upsertJobScheduler(
          schedule.id,
          { every: schedule.everyMs, offset: schedule.offsetMs },
          { name: JOB_NAME, data: schedule.data, opts: jobOptions },
        ),
      );
    },

    async enqueueSlot(schedule, slotMs) {
      // `repeat:<scheduler id>:<slot millis>` is the id BullMQ gives the scheduler's own job of that slot.
      const jobId = `repeat:${schedule.id}:${slotMs}`;
      await bounded(() => queueFor(schedule.location).add(JOB_NAME, schedule.data, { ...jobOptions, jobId }));
    },

    async removeSchedule(location, scheduleId) {
      await bounded(() => queueFor(location).removeJobScheduler(scheduleId));
    },

    async listScheduleIds(location) {
      return (await readSchedules(location)).map((s) => s.id ?? s.key);
    },

    async listSchedules(location) {
      // BullMQ leaves a zero offset out of what it returns. A scheduler written with other job options (an
      // older release's retries or retention) is not current, so the reconcile rewrites it.
      return (await readSchedules(location)).map((s) => ({
        id: s.id ?? s.key,
        everyMs: s.every ?? 0,
        offsetMs: s.offset ?? 0,
        version: s.template?.data?.version,
        current:
          s.template?.opts?.attempts === jobOptions.attempts &&
          s.template.opts.removeOnComplete === jobOptions.removeOnComplete,
      }));
    },

    async schedulesPresent() {
      return (await bounded(() => producer.exists(markerKey))) === 1;
    },

    async markSchedulesPresent() {
      await bounded(() => producer.set(markerKey, new Date().toISOString()));
    },

    consume(locations, handler, consumeOptions: ConsumeOptions): RunConsumer {
      const workers = locations.map((location) => {
        const worker = new Worker<RunJobData>(
          location,
          async (job) => {
            try {
              await handler(deliveredJob(job));
            } catch (error) {
              if (isRetryable(error)) throw error;
              // Anything but an absent dependency would fail the same way again: no retry.
              throw new UnrecoverableError(shortReason(error));
            }
          },
          {
            connection,
            prefix,
            concurrency: consumeOptions.concurrency,
            settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
          },
        );
        worker.on('failed', (job, error) => {
          const { organizationId, monitorId, runId } = job?.data ?? {};
          const attempts = { attempt: job?.attemptsMade, of: job?.opts.attempts };
          const ids = { organizationId, monitorId, location, runId, jobId: job?.id, ...attempts };
          const final =
            job === undefined ||
            error instanceof UnrecoverableError ||
            job.attemptsMade >= (job.opts.attempts ?? 1);
          if (!final) {
            options.log.warn({ ...ids, reason: shortReason(error) }, 'run job will be retried');
            return;
          }
          const reason = error instanceof UnrecoverableError ? 'error' : dropReasonOf(error);
          options.log.error({ ...ids, reason, err: error }, 'run job dropped');
          if (job !== undefined) consumeOptions.onDropped?.(deliveredJob(job), reason);
        });
        // Without a listener an 'error' event would end the process; BullMQ reconnects by itself.
        worker.on('error', (error) =>
          options.log.warn({ reason: shortReason(error), location }, 'run queue worker error'),
        );
        consumers.add(worker);
        return worker;
      });
      return {
        async close() {
          await Promise.all(workers.map((w) => w.close()));
          for (const w of workers) consumers.delete(w);
        },
      };
    },

    async close() {
      await Promise.all([...consumers].map((w) => w.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      connection.disconnect();
      producer.disconnect();
    },
  };
}
