// Real activity for a live Meerkat process to export: a local receiver standing for both a monitored API and
// a webhook endpoint, and two monitors. `refused` is triggered once and fails (port 9 refuses connections, a
// `connection` error), which fires its run_failed rule and delivers a webhook; it runs daily, so no scheduled
// run of it comes in between. `ticking` runs every 10 s on its schedule against the receiver and passes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { webhookSecret } from '../notifications/notification-fixtures.js';
import { monitorBody } from './metrics-fixtures.js';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** `/ok` answers JSON (a monitor target); `/hook` takes webhooks with 204 and keeps their count. */
export async function startReceiver() {
  const received = { hooks: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/hook') {
        received.hooks += 1;
        res.writeHead(204).end();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Calls a hub API with a key: `call('GET', '/runs/')`. */
export type ApiCall = (method: string, path: string, body?: unknown) => Promise<Response>;

/** The webhook integration `receiver`, delivering to the receiver's `/hook`. */
export async function createReceiverIntegration(call: ApiCall, receiver: Receiver): Promise<void> {
  const integration = await call('POST', '/integrations', {
    name: 'receiver',
    environment: 'production',
    config: { providerType: 'webhook', url: `${receiver.url}/hook` },
    credentials: { signingSecret: webhookSecret },
  });
  expect(integration.status).toBe(201);
}

export function apiCaller(base: string, key: string): ApiCall {
  return (method, path, body) =>
    fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

/**
 * Sets up the integration and both monitors, triggers `refused`, and returns once its run failed, `ticking` has
 * finished a scheduled run and the receiver got the webhook: everything the database-derived gauges read is
 * then written, so a first scrape after this reads final figures.
 */
export async function produceActivity(call: ApiCall, receiver: Receiver): Promise<void> {
  await createReceiverIntegration(call, receiver);
  const refused = {
    ...monitorBody('refused'),
    frequency: { every: 1, unit: 'DAY' },
    notifications: [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'receiver' },
    ],
  };
  expect((await call('PUT', '/monitor/refused', refused)).status).toBe(201);
  const ticking = {
    ...monitorBody('ticking'),
    frequency: { every: 1 / 6, unit: 'MINUTE' },
    nodes: [{ ...monitorBody('ticking').nodes[0], base: receiver.url, path: '/ok' }],
  };
  expect((await call('PUT', '/monitor/ticking', ticking)).status).toBe(201);
  const triggered = await call('POST', '/runs/trigger/refused', { environment: 'production' });
  expect(triggered.status).toBe(201);
  const runId = ((await triggered.json()) as { data: { id: string } }).data.id;

  const read = async <T>(path: string) => ((await (await call('GET', path)).json()) as { data: T }).data;
  await eventually(async () =>
    (await read<{ status: string }>(`/runs/${runId}`)).status === 'failed' ? true : undefined,
  );
  await eventually(async () => {
    const runs = await read<Array<{ status: string }>>('/runs/?monitorId=ticking');
    return runs.some((r) => r.status === 'completed') ? true : undefined;
  }, 30_000);
  await eventually(() => Promise.resolve(receiver.received.hooks === 1 ? true : undefined));
}
