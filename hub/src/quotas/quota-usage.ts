import type { QuotaName } from './organization-quotas.js';
import type { StoredQuotaUsage } from './quota-usage.repository.js';

/** What an organization uses, in each quota's own unit; requestsPerSecond is a counter (docs/metrics.md). */
export type QuotaUsage = Record<Exclude<QuotaName, 'requestsPerSecond'>, number>;

/**
 * Usage by quota name. `runsKept` is what the organization's schedules keep at once: runs a day times
 * RUN_RETENTION_DAYS (a run is kept between that and one day more, ADR 0021, so storage may hold a day's worth
 * more); manual runs are not counted (the requests quota bounds them).
 */
export function usageByQuota(usage: StoredQuotaUsage, runRetentionDays: number): QuotaUsage {
  return {
    monitors: usage.monitors,
    runsKept: usage.runsPerDay * runRetentionDays,
    minFrequencySeconds: usage.shortestIntervalSeconds,
    locationsPerMonitor: usage.mostLocations,
  };
}
