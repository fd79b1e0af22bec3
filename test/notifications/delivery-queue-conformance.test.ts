// The contract of DeliveryQueue (hub/src/notifications/delivery-queue.ts), run against both implementations:
// BullMQ on the test Redis (a key prefix of its own per queue) and the in-process twin of `meerkat dev`.
import { describe, expect, it } from 'vitest';
import { createBullmqDeliveryQueue } from '../../hub/src/notifications/bullmq-delivery-queue.js';
import {
  DELIVERY_ATTEMPTS,
  type DeliveryAttempt,
  type DeliveryJobData,
  type DeliveryQueue,
} from '../../hub/src/notifications/delivery-queue.js';
import { createInProcessDeliveryQueue } from '../../hub/src/notifications/in-process-delivery-queue.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';

// A short first backoff, so five attempts take 150 ms.
const backoffMs = 10;

const implementations: Array<{ name: string; open: () => DeliveryQueue }> = [
  {
    name: 'BullMQ',
    open: () => createBullmqDeliveryQueue({ redisUrl: testRedisUrl(), prefix: testRedisPrefix(), backoffMs }),
  },
  { name: 'in-process', open: () => createInProcessDeliveryQueue({ backoffMs }) },
];

const delivery = (eventId: string, channelKey = 'webhook:receiver'): DeliveryJobData => ({
  organizationId: 'acme',
  eventId,
  channelKey,
  ruleId: 'rule_1',
});

describe.each(implementations)('the $name delivery queue', ({ open }) => {
  async function withConsumer(
    handler: (attempt: DeliveryAttempt) => Promise<void>,
    test: (queue: DeliveryQueue) => Promise<void>,
  ) {
    const queue = open();
    const consumer = queue.consume(handler, { concurrency: 1 });
    try {
      await test(queue);
    } finally {
      await consumer.close();
      await queue.close();
    }
  }

  it('delivers a job as attempt 1, once per event and channel however often it is enqueued', async () => {
    const attempts: DeliveryAttempt[] = [];
    await withConsumer(
      (attempt) => Promise.resolve(void attempts.push(attempt)),
      async (queue) => {
        await queue.enqueue(delivery('evt_1'));
        await queue.enqueue(delivery('evt_1'));
        await queue.enqueue(delivery('evt_1', 'email:ops'));
        await eventually(() => Promise.resolve(attempts.length === 2 ? true : undefined));
        // The third job was enqueued last: once it is in, a duplicate of the first would have come before it.
        expect(attempts).toEqual([
          { data: delivery('evt_1'), attempt: 1, lastAttempt: false },
          { data: delivery('evt_1', 'email:ops'), attempt: 1, lastAttempt: false },
        ]);
      },
    );
  });

  it(`tries a failing delivery ${DELIVERY_ATTEMPTS} times, the last one marked last`, async () => {
    const attempts: Array<[number, boolean]> = [];
    await withConsumer(
      (attempt) => {
        attempts.push([attempt.attempt, attempt.lastAttempt]);
        return Promise.reject(new Error('the receiver answered 503'));
      },
      async (queue) => {
        await queue.enqueue(delivery('evt_failing'));
        await eventually(() => Promise.resolve(attempts.length === DELIVERY_ATTEMPTS ? true : undefined));
        expect(attempts).toEqual([
          [1, false],
          [2, false],
          [3, false],
          [4, false],
          [5, true],
        ]);
      },
    );
  });
});
