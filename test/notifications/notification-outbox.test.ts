// The notification outbox (docs/adr/0051-notification-outbox.md): deliveries are written with their event and
// handed to the queue only after the commit, by the drain after it or by the sweep, each exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { newId } from '../../hub/src/db/ids.js';
import { createBullmqDeliveryQueue } from '../../hub/src/notifications/bullmq-delivery-queue.js';
import type { DeliveryQueue } from '../../hub/src/notifications/delivery-queue.js';
import { drainNotificationOutbox } from '../../hub/src/notifications/notification-outbox.js';
import { countPendingDeliveries } from '../../hub/src/notifications/notification-outbox.repository.js';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import type { RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { finishRun as finishRunRow, insertRuns } from '../../hub/src/runs/run.repository.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  later,
  putMonitor,
  recordingDeliveryQueue,
  rulesOf,
} from './notification-fixtures.js';

const failOnEveryRun = [
  { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, cooldownMinutes: 0 },
];

/**
 * Records a failed run with `hook` in its transaction the way run-finished does, but stops after the commit:
 * the after-commit drain never runs, as in a process killed between the commit and its drain.
 */
async function recordThenDie(db: Db, hook: RunFinishedHook, monitorId: string): Promise<void> {
  const id = newId('run');
  const at = later();
  await insertRuns(db, [
    {
      organization_id: 'acme',
      id,
      monitor_id: monitorId,
      execution_group_id: newId('grp'),
      location: 'eu-west',
      environment: 'production',
      status: 'running',
      triggered_by: 'schedule',
      schedule_slot: null,
      started_at: at,
      errors: jsonColumn([]),
    },
  ]);
  const result = { success: false, errors: ['status 503'], steps: null, completedAt: at, durationMs: 5 };
  await db.transaction().execute(async (tx) => {
    const finished = await finishRunRow(tx, 'acme', id, result);
    if (finished === undefined) throw new Error(`run ${id} was not running`);
    const afterCommit = await hook.onRunsFinished(tx, [finished]);
    expect(afterCommit).toBeTypeOf('function');
  });
}

/** The BullMQ notifications queue on the shared Redis, with a consumer that runs one job at a time, in order. */
function countingBullmqQueue(): { deliveries: DeliveryQueue; ran: string[] } {
  const deliveries = createBullmqDeliveryQueue({ redisUrl: testRedisUrl(), prefix: testRedisPrefix() });
  const ran: string[] = [];
  deliveries.consume(
    ({ data }) => {
      ran.push(data.eventId);
      return Promise.resolve();
    },
    { concurrency: 1 },
  );
  return { deliveries, ran };
}

describe('the notification outbox', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    await createWebhookIntegration(hub, 'hooks', 'http://127.0.0.1:9/unused');
  });
  afterAll(() => hub.close());

  it('a rolled-back transaction leaves no event, no outbox row and no delivery', async () => {
    await putMonitor(hub, 'rolled-back', failOnEveryRun);
    const [rule] = await rulesOf(hub, 'rolled-back');
    const deliveries = recordingDeliveryQueue();
    const refusing: RunFinishedHook = {
      name: 'refuses after the rules',
      onRunsFinished: () => Promise.reject(new Error('the transaction fails after the rules ran')),
    };
    await expect(
      finishRun(hub.db, [ruleEvaluationHook(deliveries), refusing], {
        monitorId: 'rolled-back',
        success: false,
        at: later(),
      }),
    ).rejects.toThrow('the transaction fails after the rules ran');
    expect(await eventsOf(hub, rule?.id)).toHaveLength(0);
    expect(await countPendingDeliveries(hub.db)).toBe(0);
    expect(await drainNotificationOutbox(hub.db, deliveries)).toBe(0);
    expect(deliveries.jobs).toEqual([]);
  });

  it('a process killed between the commit and its drain: the next drain hands the delivery over once', async () => {
    await putMonitor(hub, 'killed', failOnEveryRun);
    const [rule] = await rulesOf(hub, 'killed');
    await recordThenDie(hub.db, ruleEvaluationHook(recordingDeliveryQueue()), 'killed');
    const [event] = await eventsOf(hub, rule?.id);
    expect(event?.deliveryStatus).toEqual({ webhook: { status: 'pending' } });
    expect(await countPendingDeliveries(hub.db)).toBe(1);

    const { deliveries, ran } = countingBullmqQueue();
    try {
      expect(await drainNotificationOutbox(hub.db, deliveries)).toBe(1);
      expect(await drainNotificationOutbox(hub.db, deliveries)).toBe(0);
      await eventually(() => Promise.resolve(ran.length > 0));
      expect(ran).toEqual([event?.id]);
      expect(await countPendingDeliveries(hub.db)).toBe(0);
    } finally {
      await deliveries.close();
    }
  });

  it('drains racing each other hand every row over exactly once, even to a queue that does not deduplicate', async () => {
    await putMonitor(hub, 'raced', failOnEveryRun);
    const [rule] = await rulesOf(hub, 'raced');
    const hook = ruleEvaluationHook(recordingDeliveryQueue());
    for (let i = 0; i < 12; i++) await recordThenDie(hub.db, hook, 'raced');
    expect(await countPendingDeliveries(hub.db)).toBe(12);

    // The drain after a commit and three sweeps (of this and other processes) at once. Each enqueue takes a few
    // milliseconds, as a Redis round trip does, so the drains overlap while they hand rows over.
    const deliveries = recordingDeliveryQueue();
    const roundTrip: DeliveryQueue = {
      ...deliveries,
      enqueue: async (job) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await deliveries.enqueue(job);
      },
    };
    const handed = await Promise.all([1, 2, 3, 4].map(() => drainNotificationOutbox(hub.db, roundTrip)));
    expect(handed.reduce((sum, rows) => sum + rows, 0)).toBe(12);
    const eventIds = (await eventsOf(hub, rule?.id)).map((e) => e.id).sort();
    expect(eventIds).toHaveLength(12);
    expect(deliveries.jobs.map((job) => job.eventId).sort()).toEqual(eventIds);
  });

  it('a row enqueued by a drain that died before deleting it is delivered once when drained again', async () => {
    await putMonitor(hub, 'half-drained', failOnEveryRun);
    const [rule] = await rulesOf(hub, 'half-drained');
    await recordThenDie(hub.db, ruleEvaluationHook(recordingDeliveryQueue()), 'half-drained');
    const [event] = await eventsOf(hub, rule?.id);
    const job = {
      organizationId: 'acme',
      eventId: event?.id ?? '',
      channelKey: 'webhook',
      ruleId: rule?.id ?? null,
    };
    const { deliveries, ran } = countingBullmqQueue();
    try {
      // The dead drain got as far as the queue; its delete never committed, so the row is still there.
      await deliveries.enqueue(job);
      expect(await drainNotificationOutbox(hub.db, deliveries)).toBe(1);
      // One job at a time, in order: a second job for the event would have run before the sentinel.
      await deliveries.enqueue({ ...job, eventId: 'evt_sentinel' });
      await eventually(() => Promise.resolve(ran.includes('evt_sentinel')));
      expect(ran).toEqual([event?.id, 'evt_sentinel']);
    } finally {
      await deliveries.close();
    }
  });
});
