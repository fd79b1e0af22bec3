import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { createNotificationDeliveryMetrics } from '../../hub/src/notifications/notification-delivery-metrics.js';
import { createBullmqDeliveryQueue } from '../../hub/src/notifications/bullmq-delivery-queue.js';
import { startNotifier } from '../../hub/src/server/start-notifier.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { loopbackEgress } from '../harness/egress.js';
import { eventually } from '../harness/eventually.js';
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
  webhookSecret,
} from './notification-fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers webhooks with 204, and `chat.postMessage` like Slack's Web API; `failNext` 5xx answers come first. */
async function startReceiver() {
  const received: Received[] = [];
  let failNext = 0;
  let ts = 1000;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (failNext > 0) {
        failNext -= 1;
        res.writeHead(503).end('unavailable');
      } else if (req.url?.startsWith('/api/chat.postMessage')) {
        ts += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, channel: 'C0123', ts: `${ts}.000100` }));
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    failNext: (count: number) => (failNext = count),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Enough of quoted-printable for assertions on the text (no MIME parser among the dependencies). */
function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

async function startSmtp() {
  const mails: Array<{ envelope: { from: string; to: string[] }; raw: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('error', callback);
      stream.on('end', () => {
        mails.push({
          envelope: {
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          raw: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('delivery over webhook, email and chat through the BullMQ notifications queue', () => {
  let hub: TestHub;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let notifier: Awaited<ReturnType<typeof startNotifier>>;
  const registry = createMetricsRegistry('worker');
  /** Non-zero values of a series by `channel result` (or `channel` alone), as a scrape of the worker shows them. */
  const scraped = async (name: string): Promise<Record<string, number>> =>
    Object.fromEntries(
      samplesOf(await registry.metrics(), name)
        .filter((s) => s.value !== 0)
        .map((s) => [[s.labels.channel, s.labels.result].filter(Boolean).join(' '), s.value]),
    );
  /** Delivery attempts counted and channel sends timed so far. */
  const counts = async () => ({
    attempts: await scraped('meerkat_notification_deliveries_total'),
    sends: await scraped('meerkat_notification_delivery_duration_seconds_count'),
  });
  const gained = (now: Record<string, number>, then: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(now)
        .map(([key, value]) => [key, value - (then[key] ?? 0)] as const)
        .filter(([, delta]) => delta !== 0),
    );
  const countedSince = async (before: Awaited<ReturnType<typeof counts>>) => {
    const now = await counts();
    return { attempts: gained(now.attempts, before.attempts), sends: gained(now.sends, before.sends) };
  };
  const statusOf = async (ruleId: string, key: string, index = 0) =>
    (await eventsOf(hub, ruleId))[index]?.deliveryStatus[key];
  const settled = (ruleId: string, key: string, index = 0) =>
    eventually(async () => {
      const status = await statusOf(ruleId, key, index);
      return status?.status === 'pending' ? undefined : status;
    });

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    receiver = await startReceiver();
    smtp = await startSmtp();
    notifier = await startNotifier({
      settings: {
        REDIS_URL: testRedisUrl(),
        SLACK_API_URL: `${receiver.url}/api/`,
        PUBLIC_URL: 'https://meerkat.example',
      },
      log: silentLog,
      components: { db: hub.db, cipher: hub.cipher },
      deliveries: createBullmqDeliveryQueue({
        redisUrl: testRedisUrl(),
        prefix: testRedisPrefix(),
        backoffMs: 20,
      }),
      onDeliveryAttempt: createNotificationDeliveryMetrics(registry),
      egress: loopbackEgress,
    });
  });
  afterAll(async () => {
    await notifier.close();
    await Promise.all([receiver.close(), smtp.close(), hub.close()]);
  });

  it('a webhook receiver verifies the Standard Webhooks signature of the versioned payload; one success is counted', async () => {
    await createWebhookIntegration(hub, 'receiver', `${receiver.url}/hook`);
    await putMonitor(hub, 'hooked', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'receiver' },
    ]);
    const ruleId = (await rulesOf(hub, 'hooked'))[0]?.id as string;
    const before = await counts();
    const runId = await finishRun(hub.db, [notifier.hook], {
      monitorId: 'hooked',
      success: false,
      at: later(),
    });
    expect(await settled(ruleId, 'webhook')).toMatchObject({
      status: 'delivered',
      responseCode: 204,
      attempt: 1,
    });
    const call = receiver.received.find((r) => r.path === '/hook') as Received;
    const payload = new Webhook(webhookSecret).verify(call.body, call.headers as Record<string, string>);
    expect(payload).toMatchObject({
      version: '1',
      type: 'monitor.alert',
      monitor: { id: 'hooked' },
      location: 'eu-west',
      run: { id: runId, success: false },
    });
    await expect
      .poll(() => countedSince(before))
      .toEqual({ attempts: { 'webhook success': 1 }, sends: { webhook: 1 } });
  });

  it('an email lands in the SMTP server with the sender, reply-to and both parts; one success is counted', async () => {
    const connection = await hub.request('POST', '/connections', {
      body: {
        provider: 'cloud',
        authMethod: 'smtp',
        credentials: { host: '127.0.0.1', port: smtp.port, secure: false },
      },
    });
    const connectionId = ((await connection.json()) as { data: { id: string } }).data.id;
    const created = await hub.request('POST', '/integrations', {
      body: {
        name: 'mail',
        environment: 'production',
        connectionId,
        config: {
          providerType: 'email',
          fromAddress: 'alerts@meerkat.example',
          fromName: 'Meerkat',
          replyTo: 'oncall@shop.example',
        },
      },
    });
    expect(created.status).toBe(201);
    await putMonitor(hub, 'mailed', [
      {
        trigger: { type: 'run_failed' },
        routing: { channelType: 'email', toAddresses: ['ops@shop.example'] },
      },
    ]);
    const ruleId = (await rulesOf(hub, 'mailed'))[0]?.id as string;
    const before = await counts();
    await finishRun(hub.db, [notifier.hook], { monitorId: 'mailed', success: false, at: later() });
    expect(await settled(ruleId, 'email')).toMatchObject({ status: 'delivered' });
    const { envelope, raw } = smtp.mails[0] as (typeof smtp.mails)[number];
    expect(envelope).toEqual({ from: 'alerts@meerkat.example', to: ['ops@shop.example'] });
    expect(raw).toMatch(/^From: Meerkat <alerts@meerkat\.example>\r?$/m);
    expect(raw).toMatch(/^Reply-To: oncall@shop\.example\r?$/m);
    expect(raw).toMatch(/^To: ops@shop\.example\r?$/m);
    expect(raw).toMatch(/^Subject: \[Meerkat\] Alert: mailed \(eu-west\): run failed in eu-west/m);
    expect(raw).toMatch(/^Content-Type: multipart\/alternative;/m);
    expect(raw).toMatch(/^Content-Type: text\/plain; charset=utf-8\r?$/m);
    expect(raw).toMatch(/^Content-Type: text\/html; charset=utf-8\r?$/m);
    expect(raw).toContain('Error: assertion failed: status expected 200, actual 503');
    expect(raw).toContain('<h2>Alert: mailed (eu-west)</h2>');
    await expect
      .poll(() => countedSince(before))
      .toEqual({ attempts: { 'email success': 1 }, sends: { email: 1 } });
  });

  it('chat retries a Slack 5xx, keeps thread_ts, and posts the recovery in the failure’s thread; a retry and two successes are counted', async () => {
    const now = new Date();
    await hub.db
      .insertInto('integrations')
      .values({
        organization_id: 'acme',
        id: 'int_chat',
        environment: 'production',
        name: 'slack',
        category: 'notifications',
        provider: 'cloud',
        provider_type: 'chat',
        config: jsonColumn({ teamId: 'T1' }),
        credentials_encrypted: hub.cipher.encrypt(
          JSON.stringify({ botToken: 'xoxb-test' }),
          'integrations/acme/int_chat',
        ),
        connection_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const routing = { channelType: 'chat', channel: 'C0123' };
    await putMonitor(hub, 'chatty', [
      { trigger: { type: 'run_failed' }, routing },
      { trigger: { type: 'run_recovered' }, routing },
    ]);
    const rules = await rulesOf(hub, 'chatty');
    const failedRule = rules.find((r) => r.trigger.type === 'run_failed')?.id as string;
    const recoveredRule = rules.find((r) => r.trigger.type === 'run_recovered')?.id as string;
    const before = await counts();
    receiver.failNext(1);
    await finishRun(hub.db, [notifier.hook], { monitorId: 'chatty', success: false, at: later() });
    expect(await settled(failedRule, 'chat:C0123')).toMatchObject({ status: 'delivered', attempt: 2 });
    const [failure] = await eventsOf(hub, failedRule);
    const threadTs = failure?.channelsNotified['chat:C0123']?.thread_ts as string;
    expect(threadTs).toMatch(/^\d+\.000100$/);
    const posts = receiver.received.filter((r) => r.path.startsWith('/api/chat.postMessage'));
    expect(posts).toHaveLength(2);
    expect(posts[1]?.headers.authorization).toBe('Bearer xoxb-test');

    await finishRun(hub.db, [notifier.hook], { monitorId: 'chatty', success: true, at: later() });
    expect(await settled(recoveredRule, 'chat:C0123')).toMatchObject({ status: 'delivered' });
    const recovery = new URLSearchParams(receiver.received.at(-1)?.body);
    expect(recovery.get('thread_ts')).toBe(threadTs);
    expect(recovery.get('channel')).toBe('C0123');
    expect(
      (JSON.parse(recovery.get('blocks') ?? '[]') as Array<{ text: { text: string } }>)[0]?.text.text,
    ).toBe('Recovered: chatty (eu-west)');
    await expect
      .poll(() => countedSince(before))
      .toEqual({ attempts: { 'chat retry': 1, 'chat success': 2 }, sends: { chat: 3 } });
  });

  it('after five failed attempts the delivery is failed with the last error; four retries and a failure are counted', async () => {
    await createWebhookIntegration(hub, 'down', `${receiver.url}/down`);
    await putMonitor(hub, 'unlucky', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'down' },
    ]);
    const ruleId = (await rulesOf(hub, 'unlucky'))[0]?.id as string;
    const before = await counts();
    receiver.failNext(5);
    await finishRun(hub.db, [notifier.hook], { monitorId: 'unlucky', success: false, at: later() });
    expect(await settled(ruleId, 'webhook')).toMatchObject({
      status: 'failed',
      attempt: 5,
      responseCode: 503,
      error: 'webhook answered HTTP 503',
    });
    await expect
      .poll(() => countedSince(before))
      .toEqual({ attempts: { 'webhook retry': 4, 'webhook failure': 1 }, sends: { webhook: 5 } });
  });

  it('a disabled integration gets no delivery: the status is skipped, and counted so', async () => {
    const id = await createWebhookIntegration(hub, 'muted', `${receiver.url}/muted`);
    await putMonitor(hub, 'muted-monitor', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'muted' },
    ]);
    expect((await hub.request('PATCH', `/integrations/${id}`, { body: { enabled: false } })).status).toBe(
      200,
    );
    const ruleId = (await rulesOf(hub, 'muted-monitor'))[0]?.id as string;
    const before = await counts();
    await finishRun(hub.db, [notifier.hook], { monitorId: 'muted-monitor', success: false, at: later() });
    expect(await settled(ruleId, 'webhook')).toMatchObject({
      status: 'skipped',
      error: 'the integration is disabled',
    });
    expect(receiver.received.some((r) => r.path === '/muted')).toBe(false);
    await expect.poll(() => countedSince(before)).toEqual({ attempts: { 'webhook skipped': 1 }, sends: {} });
  });
});
