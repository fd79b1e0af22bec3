// Saving something that targets a refused address is a 400 naming the field. Nothing is sent or resolved, so
// the real metadata address can be used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicies } from '../../hub/src/egress/egress-policies.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';
import { webhookSecret } from '../notifications/notification-fixtures.js';

const METADATA_RULE = 'default deny link-local 169.254.0.0/16';

describe('the egress policy when monitors and integrations are saved', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({
      egress: createEgressPolicies({
        lists: {},
        locations: [{ name: 'eu-west', egress: { denyCidrs: ['10.0.0.0/8'] } }],
      }),
    });
  });
  afterAll(() => hub.close());

  const monitorWith = (base: string, overrides: Record<string, unknown> = {}) => {
    const monitor = validMonitor({ notifications: undefined, ...overrides });
    monitor.nodes[0] = { ...monitor.nodes[0], base };
    return monitor;
  };
  const saved = async (response: Response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  });

  it.each([
    ['http://169.254.169.254', `egress policy denies 169.254.169.254 (rule: ${METADATA_RULE})`],
    ['http://[::ffff:169.254.169.254]', `egress policy denies ::ffff:a9fe:a9fe (rule: ${METADATA_RULE})`],
    [
      'http://metadata.google.internal/computeMetadata/v1',
      'egress policy denies metadata.google.internal (rule: default deny metadata host metadata.google.internal)',
    ],
    ['http://127.0.0.1:9464', 'egress policy denies 127.0.0.1 (rule: default deny loopback 127.0.0.0/8)'],
    // localhost is loopback by definition (RFC 6761): the one name judged by its address before any lookup.
    ['http://localhost:8080', 'egress policy denies 127.0.0.1 (rule: default deny loopback 127.0.0.0/8)'],
  ])('PUT /monitor answers 400 naming nodes[0].base for %s', async (base, message) => {
    const { status, body } = await saved(
      await hub.request('PUT', '/monitor/denied', { body: monitorWith(base) }),
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      error: `invalid body: nodes[0].base: ${message}`,
      code: 'validation_failed',
      details: [{ path: 'nodes[0].base', message }],
    });
    expect((await hub.request('GET', '/monitor/denied')).status).toBe(404);
  });

  it('judges a host name only by the host rules when saved: what it resolves to is judged at run time', async () => {
    const base = 'http://resolves-later.example.test:8080';
    const response = await hub.request('POST', '/monitor', { body: monitorWith(base) });
    expect(response.status).toBe(201);
  });

  it("applies a location's override to the monitors that run there", async () => {
    const base = 'http://10.1.2.3';
    const elsewhere = await hub.request('POST', '/monitor', {
      body: monitorWith(base, { name: 'internal-us', locations: ['us-east'] }),
    });
    expect(elsewhere.status).toBe(201);
    const { status, body } = await saved(
      await hub.request('POST', '/monitor', {
        body: monitorWith(base, { name: 'internal-both', locations: ['us-east', 'eu-west'] }),
      }),
    );
    expect(status).toBe(400);
    expect(body.details).toEqual([
      {
        path: 'nodes[0].base',
        message:
          'egress policy denies 10.1.2.3 (rule: LOCATIONS eu-west egress.denyCidrs 10.0.0.0/8) in location eu-west',
      },
    ]);
  });

  it('POST and PATCH /integrations answer 400 naming config.url for a webhook to a refused address', async () => {
    const webhook = (url: string) => ({ providerType: 'webhook', url });
    const created = await saved(
      await hub.request('POST', '/integrations', {
        body: {
          name: 'metadata-hook',
          config: webhook('http://169.254.169.254/latest/meta-data/'),
          credentials: { signingSecret: webhookSecret },
        },
      }),
    );
    expect(created).toEqual({
      status: 400,
      body: {
        error: `invalid body: config.url: egress policy denies 169.254.169.254 (rule: ${METADATA_RULE})`,
        code: 'validation_failed',
        details: [
          { path: 'config.url', message: `egress policy denies 169.254.169.254 (rule: ${METADATA_RULE})` },
        ],
      },
    });
    const fine = await hub.request('POST', '/integrations', {
      body: {
        name: 'hook',
        config: webhook('https://hooks.example.com/x'),
        credentials: { signingSecret: webhookSecret },
      },
    });
    const { data } = (await fine.json()) as { data: { id: string } };
    const patched = await saved(
      await hub.request('PATCH', `/integrations/${data.id}`, {
        body: { config: webhook('http://[fe80::1]/') },
      }),
    );
    expect(patched.status).toBe(400);
    expect(patched.body.details).toEqual([
      {
        path: 'config.url',
        message: 'egress policy denies fe80::1 (rule: default deny link-local fe80::/10)',
      },
    ]);
  });

  it('POST /connections answers 400 naming credentials.host for an SMTP host the policy refuses', async () => {
    const { status, body } = await saved(
      await hub.request('POST', '/connections', {
        body: { provider: 'cloud', authMethod: 'smtp', credentials: { host: '169.254.169.254', port: 25 } },
      }),
    );
    expect(status).toBe(400);
    expect(body.details).toEqual([
      { path: 'credentials.host', message: `egress policy denies 169.254.169.254 (rule: ${METADATA_RULE})` },
    ]);
  });
});
