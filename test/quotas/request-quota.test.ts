// The requests-per-second quota of an organization against the real API: all its callers share one bucket (a
// burst of five seconds' worth), over it is 429 `quota_exceeded` with Retry-After naming the quota and its limit,
// nothing of the refused request is done, other organizations are not slowed, and admitted requests are counted.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOrganizationQuotaMetrics } from '../../hub/src/metrics/prometheus/quota-metrics.js';
import { NO_QUOTAS } from '../../hub/src/quotas/organization-quotas.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';

describe('the requests-per-second quota of an organization', () => {
  let hub: TestHub;
  const clock = { ms: Date.parse('2026-03-01T12:00:00Z') };
  const registry = new Registry();
  let counter: { countRequest: (organization: string) => void } | undefined;

  beforeAll(async () => {
    const policy = { defaults: { ...NO_QUOTAS, requestsPerSecond: 2 }, runRetentionDays: 30 };
    hub = await startTestHub({
      clock: { now: () => new Date(clock.ms) },
      quotas: {
        policy,
        platformAdminOrganization: 'meerkat-platform',
        admitted: (organization) => counter?.countRequest(organization),
      },
    });
    counter = registerOrganizationQuotaMetrics(registry, hub.db, policy);
  });
  afterAll(() => hub.close());

  it('refuses the request past the burst, whichever of the organization’s callers sends it', async () => {
    // A burst of 10 (five seconds at 2 a second), shared by acme's admin and editor.
    for (let sent = 0; sent < 10; sent += 1) {
      const as = sent % 2 === 0 ? 'acmeAdmin' : 'acmeEditor';
      const answer = await hub.request('GET', '/monitor/', { as });
      expect(answer.status).toBe(200);
      // What clients pace themselves by: the organization's bucket, as no caller limit is set here.
      expect(answer.headers.get('ratelimit-policy')).toBe('10;w=5');
      expect(answer.headers.get('ratelimit-remaining')).toBe(String(9 - sent));
    }
    const refused = await hub.request('PUT', '/monitor/late', {
      as: 'acmeEditor',
      body: validMonitor({ name: 'late', notifications: undefined }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error:
        "quota requestsPerSecond exceeded (limit 2): the organization's callers together sent more than 2 requests a second; retry in 1 s",
      code: 'quota_exceeded',
      details: [
        {
          path: '',
          quota: 'requestsPerSecond',
          limit: 2,
          message: "the organization's callers together sent more than 2 requests a second; retry in 1 s",
        },
      ],
    });
    expect(await hub.db.selectFrom('monitors').selectAll().execute()).toEqual([]);
    // Another organization has a bucket of its own.
    expect((await hub.request('GET', '/monitor/', { as: 'globexAdmin' })).status).toBe(200);
    // A second later there are two tokens again.
    clock.ms += 1000;
    expect((await hub.request('GET', '/monitor/', { as: 'acmeViewer' })).status).toBe(200);
    expect((await hub.request('GET', '/monitor/', { as: 'acmeViewer' })).status).toBe(200);
    expect((await hub.request('GET', '/monitor/', { as: 'acmeViewer' })).status).toBe(429);
  });

  it('takes an override from the admin API at once, and counts admitted requests per organization', async () => {
    const put = await hub.request('PUT', '/admin/organizations/acme/quotas', {
      as: 'platformAdmin',
      body: { requestsPerSecond: 100 },
    });
    expect(put.status).toBe(200);
    for (let sent = 0; sent < 50; sent += 1)
      expect((await hub.request('GET', '/monitor/', { as: 'acmeViewer' })).status).toBe(200);
    const text = await registry.metrics();
    // 10 + 2 + 50 admitted for acme; refused requests are not counted.
    expect(text).toContain('meerkat_organization_requests_total{organization="acme"} 62');
    expect(text).toContain('meerkat_organization_requests_total{organization="globex"} 1');
  });
});
