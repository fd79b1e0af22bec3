// Redis away when a run is recorded (docs/adr/0051-notification-outbox.md): the run and its event are recorded
// all the same, the delivery waits in the outbox, and the notifier's sweep hands it over once Redis is back: the
// webhook is called once. The Redis is a fault bed's own, killed and started again on the same port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullmqDeliveryQueue } from '../../hub/src/notifications/bullmq-delivery-queue.js';
import { createNotificationOutboxDepthMetric } from '../../hub/src/notifications/notification-delivery-metrics.js';
import { countPendingDeliveries } from '../../hub/src/notifications/notification-outbox.repository.js';
import { startNotifier } from '../../hub/src/server/start-notifier.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { loopbackEgress } from '../harness/egress.js';
import { eventually } from '../harness/eventually.js';
import { startFaultBed, type FaultBed } from '../harness/fault-bed.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { silentLog } from '../runs/run-fixtures.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  later,
  putMonitor,
  rulesOf,
} from './notification-fixtures.js';

describe('a notification recorded while Redis is away', () => {
  let hub: TestHub;
  let bed: FaultBed;
  let receiver: Server;
  const calls: string[] = [];
  const registry = createMetricsRegistry('worker');
  const depth = async () =>
    samplesOf(await registry.metrics(), 'meerkat_notification_outbox_depth')[0]?.value;

  beforeAll(async () => {
    [hub, bed] = await Promise.all([startTestHub({ redisUrl: null }), startFaultBed()]);
    receiver = createServer((req, res) => {
      calls.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await Promise.all([hub.close(), bed.close()]);
  });

  it('is recorded with its run, waits in the outbox, and is delivered once after Redis is back', async () => {
    const port = (receiver.address() as AddressInfo).port;
    await createWebhookIntegration(hub, 'receiver', `http://127.0.0.1:${port}/hook`);
    await putMonitor(hub, 'redis-away', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'receiver' },
    ]);
    const [rule] = await rulesOf(hub, 'redis-away');
    const notifier = await startNotifier({
      settings: {
        REDIS_URL: bed.redis.url,
        SLACK_API_URL: 'http://127.0.0.1:9/',
        PUBLIC_URL: 'https://m.example',
      },
      log: silentLog,
      components: { db: hub.db, cipher: hub.cipher },
      deliveries: createBullmqDeliveryQueue({ redisUrl: bed.redis.url, backoffMs: 20, log: silentLog }),
      egress: loopbackEgress,
      onOutboxDepth: createNotificationOutboxDepthMetric(registry),
      outboxSweepMs: 200,
    });
    try {
      await bed.redis.kill();
      const runId = await finishRun(hub.db, [notifier.hook], {
        monitorId: 'redis-away',
        success: false,
        at: later(),
      });
      const [event] = await eventsOf(hub, rule?.id);
      expect(event).toMatchObject({ runId, deliveryStatus: { webhook: { status: 'pending' } } });
      expect(await countPendingDeliveries(hub.db)).toBe(1);
      // The sweep fails while Redis is away and leaves the row counted.
      await eventually('the outbox depth reported', async () => (await depth()) === 1);
      expect(calls).toEqual([]);

      await bed.redis.start();
      const delivered = await eventually(async () => {
        const [latest] = await eventsOf(hub, rule?.id);
        return latest?.deliveryStatus.webhook?.status === 'delivered' && latest;
      });
      expect(delivered.id).toBe(event?.id);
      await eventually('the outbox depth back at 0', async () => (await depth()) === 0);
      expect(await countPendingDeliveries(hub.db)).toBe(0);
      expect(calls).toEqual(['/hook']);
    } finally {
      await notifier.close();
    }
  });
});
