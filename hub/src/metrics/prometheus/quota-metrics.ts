import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import type { MonitorQuotas } from '../../monitors/monitor-quotas.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';
import { cachedRead } from './cached-read.js';
import { countMonitorsByOrganization } from './monitor-catalog.repository.js';

const USAGE_CACHE_MS = 5_000;

/**
 * Each organization's quotas (QUOTA_*, those in force) and what it uses of them, so a platform team sees a
 * tenant nearing its limit before its creates fail. Organizations that own monitors only.
 */
export function registerOrganizationQuotaMetrics(
  registry: Registry,
  db: Db,
  quotas: MonitorQuotas,
  now: () => number = Date.now,
): void {
  const read = cachedRead(() => countMonitorsByOrganization(db), USAGE_CACHE_MS, now);
  const limits = (Object.entries(quotas) as Array<[string, number]>).filter(([, limit]) => limit > 0);
  new Gauge({
    name: `${METRIC_PREFIX}organization_quota`,
    help: "An organization's quota (QUOTA_*), by organization and quota; absent when the quota is off.",
    labelNames: ['organization', 'quota'],
    registers: [registry],
    async collect() {
      const organizations = await read();
      // No read has answered yet (the database is away since the start): no series rather than a wrong one.
      if (organizations === undefined) return;
      this.reset();
      for (const { organizationId } of organizations)
        for (const [quota, limit] of limits) this.set({ organization: organizationId, quota }, limit);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}organization_quota_usage`,
    help: 'What an organization uses of a quota that counts what it owns (monitors), by organization and quota.',
    labelNames: ['organization', 'quota'],
    registers: [registry],
    async collect() {
      const organizations = await read();
      // No read has answered yet (the database is away since the start): no series rather than a wrong one.
      if (organizations === undefined) return;
      this.reset();
      for (const { organizationId, monitors } of organizations)
        this.set({ organization: organizationId, quota: 'monitors' }, monitors);
    },
  });
}
