import { z } from 'zod';

// What one organization may own and spend (issue #33, docs/adr/0028-quotas-and-bulk-writes.md). Each quota has a
// default for every organization (QUOTA_*) that a platform admin may override per organization (the admin API,
// table organization_quotas); 0 turns a quota off.

const limit = (max: number) => z.number().int().min(0).max(max);

/** Each quota's bounds, one zod schema: the settings, the admin API's body and the stored overrides use it. */
export const organizationQuotasSchema = z
  .strictObject({
    monitors: limit(10_000_000).meta({ description: 'Monitors the organization may own.' }),
    minFrequencySeconds: limit(30 * 86_400).meta({
      description: 'The shortest interval, in seconds, a monitor may run at.',
    }),
    locationsPerMonitor: limit(50).meta({ description: 'Locations one monitor may run in.' }),
    runsKept: limit(1_000_000_000_000).meta({
      description:
        'Scheduled runs the organization’s monitors may keep within RUN_RETENTION_DAYS: the sum over its ' +
        'monitors of runs a day (86,400 s / interval, rounded up, times locations) times RUN_RETENTION_DAYS.',
    }),
    requestsPerSecond: z.number().min(0).max(100_000).meta({
      description: 'API requests a second of all the organization’s callers together, per hub replica.',
    }),
  })
  .meta({ id: 'OrganizationQuotas' });
export type OrganizationQuotas = z.infer<typeof organizationQuotasSchema>;
export type QuotaName = keyof OrganizationQuotas;

/** A platform admin's overrides of one organization: each quota given replaces the default, absent ones keep it. */
export const quotaOverridesSchema = organizationQuotasSchema.partial().meta({ id: 'QuotaOverrides' });
export type QuotaOverrides = z.infer<typeof quotaOverridesSchema>;

export const NO_QUOTAS: OrganizationQuotas = {
  monitors: 0,
  minFrequencySeconds: 0,
  locationsPerMonitor: 0,
  runsKept: 0,
  requestsPerSecond: 0,
};

const setting = (schema: z.ZodNumber) => z.coerce.number().pipe(schema).default(0);
const { shape } = organizationQuotasSchema;

/** The QUOTA_* settings, spread into the settings schema of the hub: the default of every organization. */
export const quotaSettingsShape = {
  QUOTA_MONITORS: setting(shape.monitors),
  QUOTA_MIN_FREQUENCY_SECONDS: setting(shape.minFrequencySeconds),
  QUOTA_LOCATIONS_PER_MONITOR: setting(shape.locationsPerMonitor),
  QUOTA_RUNS_KEPT: setting(shape.runsKept),
  QUOTA_REQUESTS_PER_SECOND: setting(shape.requestsPerSecond),
};
type QuotaSettings = { readonly [Name in keyof typeof quotaSettingsShape]: number };

export function quotaDefaultsOf(settings: QuotaSettings): OrganizationQuotas {
  return {
    monitors: settings.QUOTA_MONITORS,
    minFrequencySeconds: settings.QUOTA_MIN_FREQUENCY_SECONDS,
    locationsPerMonitor: settings.QUOTA_LOCATIONS_PER_MONITOR,
    runsKept: settings.QUOTA_RUNS_KEPT,
    requestsPerSecond: settings.QUOTA_REQUESTS_PER_SECOND,
  };
}

/** The quotas in force for an organization: its overrides over the defaults. */
export function withOverrides(defaults: OrganizationQuotas, overrides: QuotaOverrides): OrganizationQuotas {
  const effective = { ...defaults };
  for (const [name, value] of Object.entries(overrides) as Array<[QuotaName, number | undefined]>)
    if (value !== undefined) effective[name] = value;
  return effective;
}

/** What the hub needs to judge quotas: the defaults, and how long runs are kept (RUN_RETENTION_DAYS). */
export interface QuotaPolicy {
  defaults: OrganizationQuotas;
  runRetentionDays: number;
}
