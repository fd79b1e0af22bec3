// The organization's quotas of what it owns (QUOTA_*) against the real API and database: over a quota is a 403
// `quota_exceeded` naming the quota and its limit, and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';
import { Registry } from 'prom-client';
import { registerOrganizationQuotaMetrics } from '../../hub/src/metrics/prometheus/quota-metrics.js';
import { quotaDefaultsOf } from '../../hub/src/quotas/organization-quotas.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from './fixtures.js';

describe('the quotas of an organization', () => {
  let hub: TestHub;
  const settings = loadSettings(
    {
      QUOTA_MONITORS: '2',
      QUOTA_MIN_FREQUENCY_SECONDS: '60',
      QUOTA_LOCATIONS_PER_MONITOR: '2',
      QUOTA_RUNS_KEPT: '30000',
      RUN_RETENTION_DAYS: '10',
    },
    'admin',
  );
  const policy = { defaults: quotaDefaultsOf(settings), runRetentionDays: settings.RUN_RETENTION_DAYS };

  beforeAll(async () => {
    hub = await startTestHub({ quotas: { policy } });
  });
  afterAll(() => hub.close());

  const monitor = (name: string, overrides: Record<string, unknown> = {}) =>
    validMonitor({ name, notifications: undefined, frequency: { every: 1, unit: 'MINUTE' }, ...overrides });
  const count = async (as: 'acmeAdmin' | 'globexAdmin' = 'acmeAdmin') => {
    const body = (await (await hub.request('GET', '/monitor/', { as })).json()) as { data: unknown[] };
    return body.data.length;
  };
  const refusal = async (response: Response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  });

  it('refuses a monitor more often than the lowest frequency, naming the quota and its limit', async () => {
    const answer = await refusal(
      await hub.request('PUT', '/monitor/fast', {
        body: monitor('fast', { frequency: { every: 0.5, unit: 'MINUTE' } }),
      }),
    );
    expect(answer).toEqual({
      status: 403,
      body: {
        error:
          "quota minFrequencySeconds exceeded (limit 60): runs every 30 s; the organization's quota allows every 60 s at most often",
        code: 'quota_exceeded',
        details: [
          {
            path: 'frequency',
            quota: 'minFrequencySeconds',
            limit: 60,
            message: "runs every 30 s; the organization's quota allows every 60 s at most often",
          },
        ],
      },
    });
    expect((await hub.request('GET', '/monitor/fast')).status).toBe(404);
  });

  it('refuses a monitor in more locations than the quota allows', async () => {
    const answer = await refusal(
      await hub.request('PUT', '/monitor/everywhere', {
        body: monitor('everywhere', { locations: ['default', 'eu-west', 'us-east'] }),
      }),
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      code: 'quota_exceeded',
      details: [{ path: 'locations', quota: 'locationsPerMonitor', limit: 2 }],
    });
    expect((await hub.request('GET', '/monitor/everywhere')).status).toBe(404);
  });

  it('refuses the monitor past the monitors quota, keeps updates of owned ones, and counts per organization', async () => {
    for (const name of ['one', 'two'])
      expect((await hub.request('PUT', `/monitor/${name}`, { body: monitor(name) })).status).toBe(201);
    const answer = await refusal(await hub.request('PUT', '/monitor/three', { body: monitor('three') }));
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      code: 'quota_exceeded',
      error: expect.stringContaining('quota monitors exceeded (limit 2)') as unknown,
      details: [{ quota: 'monitors', limit: 2 }],
    });
    expect(await count()).toBe(2);
    // An update of a monitor it owns is not a new one.
    const update = await hub.request('PUT', '/monitor/one', {
      body: monitor('one', { frequency: { every: 2, unit: 'MINUTE' } }),
    });
    expect(update.status).toBe(200);
    // Another organization has a quota of its own.
    const other = await hub.request('PUT', '/monitor/three', { as: 'globexAdmin', body: monitor('three') });
    expect(other.status).toBe(201);
    expect([await count(), await count('globexAdmin')]).toEqual([2, 1]);
  });

  it('lets no two creates at once past the monitors quota', async () => {
    await hub.request('DELETE', '/monitor/one');
    const answers = await Promise.all(
      ['four', 'five', 'six'].map((name) => hub.request('PUT', `/monitor/${name}`, { body: monitor(name) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403]);
    expect(await count()).toBe(2);
  });

  it('refuses a change that would keep more runs than the runs kept quota, and keeps the monitor as it was', async () => {
    // acme owns two monitors at 1 minute in one location: 2 x 1,440 runs a day x 10 days = 28,800 runs kept.
    const faster = await refusal(
      await hub.request('PUT', '/monitor/two', {
        body: monitor('two', { locations: ['default', 'eu-west'] }),
      }),
    );
    expect(faster).toEqual({
      status: 403,
      body: {
        error:
          "quota runsKept exceeded (limit 30000): the organization's monitors would keep 43200 runs (4320 a day for 10 days); its quota allows 30000",
        code: 'quota_exceeded',
        details: [
          {
            path: 'frequency',
            quota: 'runsKept',
            limit: 30000,
            message:
              "the organization's monitors would keep 43200 runs (4320 a day for 10 days); its quota allows 30000",
          },
        ],
      },
    });
    const two = (await (await hub.request('GET', '/monitor/two')).json()) as {
      data: { locations?: string[] };
    };
    expect(two.data.locations ?? ['default']).toEqual(['default']);
    // Slower monitors keep fewer runs: a change that lowers the total always passes.
    const slower = await hub.request('PUT', '/monitor/two', {
      body: monitor('two', { frequency: { every: 2, unit: 'MINUTE' }, locations: ['default', 'eu-west'] }),
    });
    expect(slower.status).toBe(200);
  });

  it('publishes each quota and what is in use per organization on the hub metrics', async () => {
    const registry = new Registry();
    registerOrganizationQuotaMetrics(registry, hub.db, policy);
    const text = await registry.metrics();
    for (const [quota, limit] of [
      ['monitors', 2],
      ['minFrequencySeconds', 60],
      ['locationsPerMonitor', 2],
      ['runsKept', 30000],
    ] as const)
      expect(text).toContain(`meerkat_organization_quota{organization="acme",quota="${quota}"} ${limit}`);
    // acme: two monitors, one every minute in one location and one every 2 minutes in two.
    for (const [quota, used] of [
      ['monitors', 2],
      ['runsKept', 28800],
      ['minFrequencySeconds', 60],
      ['locationsPerMonitor', 2],
    ] as const)
      expect(text).toContain(
        `meerkat_organization_quota_usage{organization="acme",quota="${quota}"} ${used}`,
      );
    expect(text).toContain('meerkat_organization_quota_usage{organization="globex",quota="monitors"} 1');
  });
});
