// Webhook and email deliveries under the egress policy of the worker: loopback refused, except 127.0.0.2 by an
// allow rule. The hub of these tests allows loopback when integrations are saved: what is judged is the delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';
import { createInProcessDeliveryQueue } from '../../hub/src/notifications/in-process-delivery-queue.js';
import { startNotifier } from '../../hub/src/server/start-notifier.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  later,
  putMonitor,
  rulesOf,
} from '../notifications/notification-fixtures.js';
import { silentLog } from '../runs/run-fixtures.js';
import {
  redirectPath,
  startRedirectingServer,
  type RedirectingServer,
} from '../runner/redirecting-server.js';

describe('notification deliveries and the egress policy', () => {
  let hub: TestHub;
  let local: RedirectingServer;
  let allowed: RedirectingServer;
  let denied: RedirectingServer;
  let notifier: Awaited<ReturnType<typeof startNotifier>>;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    [local, allowed, denied] = await Promise.all([
      startRedirectingServer('127.0.0.1'),
      startRedirectingServer('127.0.0.2'),
      startRedirectingServer('127.0.0.3'),
    ]);
    notifier = await startNotifier({
      settings: { REDIS_URL: undefined, SLACK_API_URL: 'https://slack.invalid/api', PUBLIC_URL: undefined },
      log: silentLog,
      components: { db: hub.db, cipher: hub.cipher },
      deliveries: createInProcessDeliveryQueue({ backoffMs: 5 }),
      egress: createEgressPolicy({ lists: { allowCidrs: ['127.0.0.2/32'] } }),
    });
  });
  afterAll(async () => {
    await notifier.close();
    await Promise.all([local.close(), allowed.close(), denied.close(), hub.close()]);
  });

  /** Fires a failure alert of a monitor notifying through `routing`; resolves the final status of `channelKey`. */
  async function alert(name: string, routing: Record<string, unknown>, channelKey: string) {
    const saved = await putMonitor(hub, name, [
      { trigger: { type: 'run_failed' }, routing, integration: name },
    ]);
    expect(saved.status).toBe(201);
    const ruleId = (await rulesOf(hub, name))[0]?.id as string;
    await finishRun(hub.db, [notifier.hook], { monitorId: name, success: false, at: later() });
    return eventually(async () => {
      const status = (await eventsOf(hub, ruleId))[0]?.deliveryStatus[channelKey];
      return status?.status === 'failed' || status?.status === 'delivered' ? status : undefined;
    });
  }

  async function deliverTo(name: string, url: string) {
    await createWebhookIntegration(hub, name, url);
    return alert(name, { channelType: 'webhook' }, 'webhook');
  }

  it('delivers to an allowed address', async () => {
    expect(await deliverTo('allowed', `${allowed.url}/hook`)).toMatchObject({ status: 'delivered' });
  });

  it('refuses a webhook whose host name resolves to a refused address; the receiver gets nothing', async () => {
    const status = await deliverTo('named-host', `${local.url.replace('127.0.0.1', 'localhost')}/hook`);
    expect(status).toMatchObject({
      status: 'failed',
      error: 'egress policy denies 127.0.0.1 (rule: default deny loopback 127.0.0.0/8)',
    });
    expect(local.received).toEqual([]);
  });

  it('does not follow a redirect, so an allowed receiver cannot bounce the payload to a refused address', async () => {
    const status = await deliverTo('bouncing', `${allowed.url}${redirectPath(307, `${denied.url}/hook`)}`);
    expect(status).toMatchObject({
      status: 'failed',
      responseCode: 307,
      error: 'webhook answered HTTP 307; redirects are not followed',
    });
    expect(denied.received).toEqual([]);
  });

  it('refuses an SMTP server whose host name resolves to a refused address, before connecting', async () => {
    const connection = await hub.request('POST', '/connections', {
      body: {
        provider: 'cloud',
        authMethod: 'smtp',
        credentials: { host: 'localhost', port: Number(new URL(local.url).port) },
      },
    });
    const connectionId = ((await connection.json()) as { data: { id: string } }).data.id;
    const created = await hub.request('POST', '/integrations', {
      body: {
        name: 'mail',
        environment: 'production',
        connectionId,
        config: { providerType: 'email', fromAddress: 'alerts@meerkat.example' },
      },
    });
    expect(created.status).toBe(201);
    const status = await alert('mail', { channelType: 'email', toAddresses: ['ops@shop.example'] }, 'email');
    expect(status).toMatchObject({
      status: 'failed',
      error: 'egress policy denies 127.0.0.1 (rule: default deny loopback 127.0.0.0/8)',
    });
    expect(local.received).toEqual([]);
  });
});
