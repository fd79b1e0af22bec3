import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  DependencyUnavailableError,
  isRedisUnavailable,
  shortReason,
  withDeadline,
} from '../system/dependency-errors.js';

// A producer call (trigger, schedule writes) fails with DependencyUnavailableError after this, never hangs:
// short enough for the API to answer within 5 s while Redis is paused (docs/operations.md).
const PRODUCER_DEADLINE_MS = 3_000;

/**
 * A Redis connection for calls made on a caller's behalf (a trigger, a schedule write, a tick): they fail fast
 * while Redis is away (no offline queue, one retry, a deadline on each call) with DependencyUnavailableError,
 * and the BullMQ queues of its prefix, opened on it once each.
 */
export function createRedisProducer(options: { redisUrl: string; prefix: string; log: Logger }) {
  const { log, prefix } = options;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (error: Error) =>
    log.debug({ reason: shortReason(error) }, 'run queue producer connection error'),
  );
  const queues = new Map<string, Queue>();
  // The connection has no offline queue: a call made while it first connects waits for it, within the same
  // deadline; one made while it is reconnecting (Redis went away) fails at once.
  const ready = () => {
    if (redis.status === 'ready') return Promise.resolve();
    if (['reconnecting', 'close', 'end'].includes(redis.status))
      return Promise.reject(new DependencyUnavailableError('redis', `not connected (${redis.status})`));
    return new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  };
  return {
    redis,
    /** Runs a call within the deadline; Redis being away becomes DependencyUnavailableError. */
    bounded: async <T>(call: () => Promise<T>): Promise<T> => {
      try {
        return await withDeadline('redis', PRODUCER_DEADLINE_MS, async () => {
          await ready();
          return call();
        });
      } catch (error) {
        if (error instanceof DependencyUnavailableError || !isRedisUnavailable(error)) throw error;
        throw new DependencyUnavailableError('redis', shortReason(error), { cause: error });
      }
    },
    /** The BullMQ queue `name` under the prefix, on this connection. */
    queue<T>(name: string): Queue<T> {
      let queue = queues.get(name);
      if (queue === undefined) {
        queue = new Queue(name, { connection: redis, prefix });
        queue.on('error', (error) =>
          log.debug({ reason: shortReason(error), queue: name }, 'run queue error'),
        );
        queues.set(name, queue);
      }
      return queue as Queue<T>;
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      redis.disconnect();
    },
  };
}

export type RedisProducer = ReturnType<typeof createRedisProducer>;
