import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DeliveredRunJob, RunConsumer, RunJobData, RunQueue, RunSchedule } from './run-queue.js';

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
}

const JOB_NAME = 'run';
// A run's own failure is recorded on its row; a job fails only when the infrastructure did, and then retries.
const jobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** Scheduler jobs are named `repeat:<scheduler id>:<slot millis>`: the millis identify the slot. */
export function slotOfJob(job: Pick<Job, 'id'>): string | undefined {
  const id = job.id ?? '';
  return id.startsWith('repeat:') ? id.slice(id.lastIndexOf(':') + 1) : undefined;
}

export function createBullmqRunQueue(options: BullmqRunQueueOptions): RunQueue {
  const prefix = options.prefix ?? 'runs';
  // BullMQ needs maxRetriesPerRequest null: its blocking commands must wait for Redis rather than fail.
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queues = new Map<string, Queue<RunJobData>>();
  const consumers = new Set<Worker<RunJobData>>();

  const queueFor = (location: string): Queue<RunJobData> => {
    let queue = queues.get(location);
    if (queue === undefined) {
      queue = new Queue<RunJobData>(location, { connection, prefix });
      queues.set(location, queue);
    }
    return queue;
  };

  return {
    async enqueue(data) {
      await queueFor(data.location).add(JOB_NAME, data, { ...jobOptions, jobId: data.runId });
    },

    async upsertSchedule(schedule: RunSchedule) {
      await queueFor(schedule.location).upsertJobScheduler(
        schedule.id,
        { every: schedule.everyMs, offset: schedule.offsetMs },
        { name: JOB_NAME, data: schedule.data, opts: jobOptions },
      );
    },

    async removeSchedule(location, scheduleId) {
      await queueFor(location).removeJobScheduler(scheduleId);
    },

    async listScheduleIds(location) {
      const schedulers = await queueFor(location).getJobSchedulers(0, -1);
      return schedulers.map((s) => s.id ?? s.key);
    },

    async listSchedules(location) {
      const schedulers = await queueFor(location).getJobSchedulers(0, -1);
      // BullMQ leaves a zero offset out of what it returns.
      return schedulers.map((s) => ({ id: s.id ?? s.key, everyMs: s.every ?? 0, offsetMs: s.offset ?? 0 }));
    },

    consume(locations, handler, { concurrency }): RunConsumer {
      const workers = locations.map((location) => {
        const worker = new Worker<RunJobData>(
          location,
          async (job) => {
            const slot = slotOfJob(job);
            // A scheduled job is due at its slot; an enqueued one as soon as it was added.
            const dueAt = new Date(slot === undefined ? job.timestamp : Number(slot));
            const delivered: DeliveredRunJob = { data: job.data, slot, dueAt };
            await handler(delivered);
          },
          { connection, prefix, concurrency },
        );
        worker.on('failed', (job, error) => {
          const { organizationId, monitorId, runId } = job?.data ?? {};
          const attempts = { attempt: job?.attemptsMade, of: job?.opts.attempts };
          options.log.error(
            { err: error, organizationId, monitorId, location, runId, jobId: job?.id, ...attempts },
            'run job failed',
          );
        });
        // Without a listener an 'error' event would end the process; BullMQ reconnects by itself.
        worker.on('error', (error) => options.log.warn({ err: error, location }, 'run queue worker error'));
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
    },
  };
}
