import { z } from 'zod';
import { frequencyToSeconds, type MonitorDefinition } from '../contract/monitor-definition.js';
import { QuotaExceededError } from '../http/errors.js';

// What one organization may own (issue #33): one tenant's 10,000 monitors at 10 s would make every other
// tenant's checks late, and nothing bounded it. Each quota is the same for every organization; 0 turns it off.

export interface MonitorQuotas {
  /** Monitors an organization may own. */
  monitors: number;
  /** The shortest interval a monitor may run at, in seconds. */
  minFrequencySeconds: number;
  /** Locations one monitor may run in. */
  locationsPerMonitor: number;
}

const quota = (max: number) => z.coerce.number().int().min(0).max(max).default(0);

/** The QUOTA_* settings, spread into the settings schema of the hub. */
export const monitorQuotaSettingsShape = {
  QUOTA_MONITORS: quota(10_000_000),
  QUOTA_MIN_FREQUENCY_SECONDS: quota(30 * 86_400),
  QUOTA_LOCATIONS_PER_MONITOR: quota(50),
};
type QuotaSettings = { readonly [Name in keyof typeof monitorQuotaSettingsShape]: number };

export function monitorQuotasOf(settings: QuotaSettings): MonitorQuotas {
  return {
    monitors: settings.QUOTA_MONITORS,
    minFrequencySeconds: settings.QUOTA_MIN_FREQUENCY_SECONDS,
    locationsPerMonitor: settings.QUOTA_LOCATIONS_PER_MONITOR,
  };
}

export const NO_MONITOR_QUOTAS: MonitorQuotas = {
  monitors: 0,
  minFrequencySeconds: 0,
  locationsPerMonitor: 0,
};

/** The quotas a definition alone can exceed: its frequency and its locations. Throws QuotaExceededError. */
export function checkDefinitionQuotas(definition: MonitorDefinition, quotas: MonitorQuotas): void {
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
export function checkMonitorCountQuota(owned: number, quotas: MonitorQuotas): void {
  if (quotas.monitors > 0 && owned >= quotas.monitors)
    throw new QuotaExceededError('monitors', quotas.monitors, {
      path: '',
      message: `the organization owns ${owned} monitors; its quota allows ${quotas.monitors}`,
    });
}
