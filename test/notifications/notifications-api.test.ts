import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import type { NotificationEvent } from '../../hub/src/notifications/notification.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  later,
  putMonitor,
  recordingDeliveryQueue,
  rulesOf,
  webhookSecret,
} from './notification-fixtures.js';

interface Answer {
  data: Record<string, unknown>;
  details: Array<{ path: string }>;
}

describe('the integrations and notifications API', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
  });
  afterAll(() => hub.close());

  it('creates a webhook integration whose credentials are stored encrypted and never returned', async () => {
    const id = await createWebhookIntegration(hub, 'ops-hook', 'https://hooks.example/meerkat');
    const body = (await (
      await hub.request('GET', `/integrations/${id}`, { as: 'acmeViewer' })
    ).json()) as Answer;
    expect(body.data).toMatchObject({
      name: 'ops-hook',
      hasCredentials: true,
      enabled: true,
      category: 'notifications',
    });
    expect(JSON.stringify(body)).not.toContain('whsec_');
    const row = await hub.db
      .selectFrom('integrations')
      .select('credentials_encrypted')
      .where('id', '=', id)
      .executeTakeFirst();
    expect(row?.credentials_encrypted).not.toContain(webhookSecret);
    expect((await hub.request('GET', `/integrations/${id}`, { as: 'globexAdmin' })).status).toBe(404);
  });

  it('answers 409 for a second integration of the same name in the environment, 403 for an editor', async () => {
    const body = {
      name: 'ops-hook',
      environment: 'production',
      config: { providerType: 'webhook', url: 'https://x.example' },
      credentials: { signingSecret: webhookSecret },
    };
    expect((await hub.request('POST', '/integrations', { body })).status).toBe(409);
    expect(
      (await hub.request('POST', '/integrations', { body: { ...body, environment: 'staging' } })).status,
    ).toBe(201);
    expect(
      (await hub.request('POST', '/integrations', { body: { ...body, name: 'x' }, as: 'acmeEditor' })).status,
    ).toBe(403);
  });

  it('refuses an email integration without an smtp connection', async () => {
    const response = await hub.request('POST', '/integrations', {
      body: { name: 'mail', config: { providerType: 'email', fromAddress: 'a@b.example' } },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Answer).details[0]?.path).toBe('connectionId');
  });

  it('refuses a monitor whose notification resolves to no integration, naming notifications[i].integration', async () => {
    const response = await putMonitor(hub, 'no-chat', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'chat', channel: 'C1' } },
    ]);
    expect(response.status).toBe(400);
    expect(((await response.json()) as Answer).details[0]?.path).toBe('notifications[0].integration');
    expect((await hub.request('GET', '/monitor/no-chat')).status).toBe(404);
  });

  it('keeps a rule’s id and lastTriggeredAt across syncs while its identity is unchanged, and deletes removed ones', async () => {
    const failed = { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } };
    const streak = {
      trigger: { type: 'consecutive_failures', threshold: 2 },
      routing: { channelType: 'webhook' },
    };
    expect((await putMonitor(hub, 'synced', [failed, streak])).status).toBe(201);
    const before = await rulesOf(hub, 'synced');
    expect(before.map((r) => r.cooldownMinutes)).toEqual([15, 15]);
    expect(before[0]).toMatchObject({
      integrationName: 'ops-hook',
      monitor: { id: 'synced', name: 'synced' },
    });
    await finishRun(hub.db, [ruleEvaluationHook(recordingDeliveryQueue())], {
      monitorId: 'synced',
      success: false,
      at: later(),
    });
    const failedRule = before.find((r) => r.trigger.type === 'run_failed');
    expect(
      await putMonitor(hub, 'synced', [{ ...failed, cooldownMinutes: 30 }], 'synced-renamed'),
    ).toHaveProperty('status', 200);
    const after = await rulesOf(hub, 'synced');
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: failedRule?.id, cooldownMinutes: 30 });
    expect(after[0]?.lastTriggeredAt).not.toBeNull();
  });

  it('the rules list is read-only', async () => {
    expect((await hub.request('POST', '/notifications/rules', { body: {} })).status).toBe(405);
    expect((await hub.request('DELETE', '/notifications/rules')).status).toBe(405);
  });

  it('PATCH /notifications/events/{id} records a delivery and merges channelMeta, for service only', async () => {
    const [event] = await eventsOf(hub);
    const patch = (as: 'acmeService' | 'acmeEditor' | 'acmeAdmin') =>
      hub.request('PATCH', `/notifications/events/${event?.id}`, {
        as,
        body: {
          channelKey: 'webhook',
          status: { status: 'delivered', responseCode: 200, channelMeta: { receipt: 'r-1' } },
        },
      });
    expect((await patch('acmeEditor')).status).toBe(403);
    expect((await patch('acmeAdmin')).status).toBe(403);
    const response = await patch('acmeService');
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: NotificationEvent };
    expect(data.deliveryStatus.webhook).toMatchObject({ status: 'delivered', responseCode: 200 });
    expect(data.channelsNotified.webhook).toMatchObject({
      channelType: 'webhook',
      location: 'eu-west',
      receipt: 'r-1',
    });
  });

  it('pages events and refuses an out-of-range limit', async () => {
    const page = (await (
      await hub.request('GET', '/notifications/events?limit=1&offset=0')
    ).json()) as Answer;
    expect(page).toMatchObject({ total: 1, limit: 1, offset: 0 });
    expect((await hub.request('GET', '/notifications/events?limit=101')).status).toBe(400);
  });
});
