import { frequencyToSeconds, type MonitorDefinition } from '../contract/monitor-definition.js';
import { QuotaExceededError } from '../http/errors.js';
import type { OrganizationQuotas } from '../quotas/organization-quotas.js';

// The quotas a monitor write can exceed (issue #33, docs/adr/0028-quotas-and-bulk-writes.md): one tenant's 10,000
// monitors at 10 s would make every other tenant's checks late and fill the runs table, and nothing bounded it.

/** The quotas a definition alone can exceed: its frequency and its locations. Throws QuotaExceededError. */
export function checkDefinitionQuotas(definition: MonitorDefinition, quotas: OrganizationQuotas): void {
  const seconds = frequencyToSeconds(definition.frequency);
  if (quotas.minFrequencySeconds > 0 && seconds < quotas.minFrequencySeconds)
    throw new QuotaExceededError('minFrequencySeconds', quotas.minFrequencySeconds, {
      path: 'frequency',
      message: `runs every ${seconds} s; the organization's quota allows every ${quotas.minFrequencySeconds} s at most often`,
    });
  const locations = (definition.locations ?? ['default']).length;
  if (quotas.locationsPerMonitor > 0 && locations > quotas.locationsPerMonitor)
    throw new QuotaExceededError('locationsPerMonitor', quotas.locationsPerMonitor, {
      path: 'locations',
      message: `names ${locations} locations; the organization's quota allows ${quotas.locationsPerMonitor}`,
    });
}

/** Before a new monitor is written: `owned` is how many the organization has now. */
export function checkMonitorCountQuota(owned: number, quotas: OrganizationQuotas): void {
  if (quotas.monitors > 0 && owned >= quotas.monitors)
    throw new QuotaExceededError('monitors', quotas.monitors, {
      path: '',
      message: `the organization owns ${owned} monitors; its quota allows ${quotas.monitors}`,
    });
}

/** After the monitor was written, in its transaction: `runsKept` is what all the organization's monitors keep now. */
export function checkRunsKeptQuota(
  runsKept: number,
  retentionDays: number,
  quotas: OrganizationQuotas,
): void {
  if (quotas.runsKept > 0 && runsKept > quotas.runsKept)
    throw new QuotaExceededError('runsKept', quotas.runsKept, {
      path: 'frequency',
      message: `the organization's monitors would keep ${runsKept} runs (${runsKept / retentionDays} a day for ${retentionDays} days); its quota allows ${quotas.runsKept}`,
    });
}
