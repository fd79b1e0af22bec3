import { backoffDelayMs } from '../system/backoff.js';
import {
  DELIVERY_ATTEMPTS,
  deliveryJobId,
  type DeliveryAttempt,
  type DeliveryQueue,
} from './delivery-queue.js';

/**
 * The delivery queue contract in one process, for `meerkat dev` without Redis: the same attempts and
 * exponential backoff as BullMQ, nothing kept across a restart.
 */
export function createInProcessDeliveryQueue(options: { backoffMs?: number } = {}): DeliveryQueue {
  const backoffMs = options.backoffMs ?? 5000;
  // BullMQ's 'exponential': the base, then doubled for each attempt; the last retry is the longest.
  const retry = { initialMs: backoffMs, maxMs: backoffMs * 2 ** (DELIVERY_ATTEMPTS - 2) };
  const waiting: DeliveryAttempt[] = [];
  const known = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let consumer: { handler: (attempt: DeliveryAttempt) => Promise<void>; concurrency: number } | undefined;

  const pump = () => {
    while (consumer !== undefined && inFlight.size < consumer.concurrency) {
      const attempt = waiting.shift();
      if (attempt === undefined) break;
      const done: Promise<void> = consumer
        .handler(attempt)
        .catch(() => {
          if (attempt.lastAttempt) return;
          const timer = setTimeout(
            () => {
              timers.delete(timer);
              const next = attempt.attempt + 1;
              waiting.push({ data: attempt.data, attempt: next, lastAttempt: next >= DELIVERY_ATTEMPTS });
              pump();
            },
            backoffDelayMs(retry, attempt.attempt - 1),
          );
          timers.add(timer);
        })
        .finally(() => {
          inFlight.delete(done);
          pump();
        });
      inFlight.add(done);
    }
  };

  return {
    enqueue(data) {
      const id = deliveryJobId(data);
      if (!known.has(id)) {
        known.add(id);
        waiting.push({ data, attempt: 1, lastAttempt: false });
        pump();
      }
      return Promise.resolve();
    },
    consume(handler, { concurrency }) {
      consumer = { handler, concurrency };
      pump();
      return {
        async close() {
          consumer = undefined;
          await Promise.all([...inFlight]);
        },
      };
    },
    async close() {
      consumer = undefined;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
