import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import { withOverrides, type QuotaPolicy } from '../../quotas/organization-quotas.js';
import { allQuotaOverrides } from '../../quotas/quota.repository.js';
import { usageByQuota } from '../../quotas/quota-usage.js';
import { quotaUsageByOrganization } from '../../quotas/quota-usage.repository.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';
import { cachedRead } from './cached-read.js';

const READ_CACHE_MS = 5_000;

type Series = Array<{ labels: { organization: string; quota: string }; value: number }>;

/** Each organization's quotas in force (overrides over QUOTA_*) and what it uses of those that count what it owns. */
async function readQuotaSeries(db: Db, policy: QuotaPolicy): Promise<{ quotas: Series; usage: Series }> {
  const [usageRows, overrideRows] = await Promise.all([quotaUsageByOrganization(db), allQuotaOverrides(db)]);
  const overrides = new Map(overrideRows.map((row) => [row.organizationId, row.overrides]));
  const organizations = new Set([...usageRows.map((row) => row.organizationId), ...overrides.keys()]);
  const quotas: Series = [];
  for (const organization of organizations)
    for (const [quota, limit] of Object.entries(
      withOverrides(policy.defaults, overrides.get(organization) ?? {}),
    ))
      if (limit > 0) quotas.push({ labels: { organization, quota }, value: limit });
  const usage: Series = usageRows.flatMap(({ organizationId: organization, ...stored }) =>
    Object.entries(usageByQuota(stored, policy.runRetentionDays)).map(([quota, value]) => ({
      labels: { organization, quota },
      value,
    })),
  );
  return { quotas, usage };
}

/**
 * Each organization's quotas and what it uses of them, so a platform team sees a tenant nearing a limit before its
 * writes fail: organizations that own monitors or have overrides. Returns the counter of admitted requests.
 */
export function registerOrganizationQuotaMetrics(
  registry: Registry,
  db: Db,
  policy: QuotaPolicy,
  now: () => number = Date.now,
): { countRequest: (organizationId: string) => void } {
  const read = cachedRead(() => readQuotaSeries(db, policy), READ_CACHE_MS, now);
  const gauge = (name: string, help: string, pick: (read: { quotas: Series; usage: Series }) => Series) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['organization', 'quota'],
      registers: [registry],
      async collect() {
        const series = await read();
        // No read has answered yet (the database is away since the start): no series rather than a wrong one.
        if (series === undefined) return;
        this.reset();
        for (const { labels, value } of pick(series)) this.set(labels, value);
      },
    });
  gauge(
    'organization_quota',
    "An organization's quota in force (its override, else QUOTA_*), by organization and quota; absent when off.",
    (series) => series.quotas,
  );
  gauge(
    'organization_quota_usage',
    'What an organization uses of a quota that counts what it owns (monitors, runsKept, minFrequencySeconds: its ' +
      'shortest interval, locationsPerMonitor: its most locations), by organization and quota.',
    (series) => series.usage,
  );
  const requests = new Counter({
    name: `${METRIC_PREFIX}organization_requests_total`,
    help: "API requests of an organization's callers this hub replica admitted: the usage of requestsPerSecond.",
    labelNames: ['organization'],
    registers: [registry],
  });
  return { countRequest: (organization) => requests.inc({ organization }) };
}
