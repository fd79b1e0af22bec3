import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { shortReason } from '../system/dependency-errors.js';
import { queueLockOptions } from '../system/queue-locks.js';
import {
  DELIVERY_ATTEMPTS,
  deliveryJobId,
  type DeliveryJobData,
  type DeliveryQueue,
} from './delivery-queue.js';

export interface BullmqDeliveryQueueOptions {
  redisUrl: string;
  /** Redis key prefix (BullMQ's default `bull` when absent); tests pass their own. */
  prefix?: string;
  /** The first retry's delay; each further one doubles it. */
  backoffMs?: number;
  /** Where Redis connection errors go (Redis away); without it they are dropped, never printed. */
  log?: Logger;
}

const DELIVERY_QUEUE_NAME = 'notifications';

export function createBullmqDeliveryQueue(options: BullmqDeliveryQueueOptions): DeliveryQueue {
  // BullMQ needs maxRetriesPerRequest null: its blocking commands must wait for Redis rather than fail.
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const prefix = options.prefix ?? 'bull';
  const queue = new Queue<DeliveryJobData>(DELIVERY_QUEUE_NAME, { connection, prefix });
  // Without listeners, ioredis and BullMQ print each failed reconnect to stderr while Redis is away; they
  // reconnect by themselves, and the outbox keeps what could not be enqueued meanwhile.
  const onError = (error: Error) =>
    options.log?.debug({ reason: shortReason(error) }, 'notifications queue connection error');
  connection.on('error', onError);
  queue.on('error', onError);
  const workers = new Set<Worker<DeliveryJobData>>();

  return {
    async enqueue(data) {
      await queue.add('deliver', data, {
        jobId: deliveryJobId(data),
        attempts: DELIVERY_ATTEMPTS,
        backoff: { type: 'exponential', delay: options.backoffMs ?? 5000 },
        removeOnComplete: { age: 24 * 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      });
    },

    consume(handler, { concurrency }) {
      const worker = new Worker<DeliveryJobData>(
        DELIVERY_QUEUE_NAME,
        async (job) => {
          const attempt = job.attemptsMade + 1;
          await handler({ data: job.data, attempt, lastAttempt: attempt >= (job.opts.attempts ?? 1) });
        },
        { connection, prefix, concurrency, ...queueLockOptions },
      );
      worker.on('error', onError);
      workers.add(worker);
      return {
        async close() {
          await worker.close();
          workers.delete(worker);
        },
      };
    },

    async close() {
      await Promise.all([...workers].map((w) => w.close()));
      await queue.close();
      connection.disconnect();
    },
  };
}
