import { z } from 'zod';
import { roleSchema } from './roles.js';
import { scopeNameSchema } from './monitor-definition.js';

/** Who the token belongs to: the console shows only what the role may do (it never decides access). */
export const principalSummarySchema = z
  .object({
    organizationId: z.string(),
    role: roleSchema,
    permissions: z.array(z.string()).meta({ description: 'What the role may do, as the API checks it.' }),
  })
  .meta({ id: 'PrincipalSummary' });
export type PrincipalSummary = z.infer<typeof principalSummarySchema>;

export const uptimeDaysQuery = z.strictObject({
  days: z.coerce.number().int().min(1).max(90).default(90),
});

/** One UTC day of a monitor in every environment, from the day tier of the rollups (docs/metrics.md). */
export const uptimeDaySchema = z
  .object({
    day: z.iso.date(),
    uptimePercent: z.number().nullable().meta({
      description:
        'Time-weighted uptime over the day’s known time (docs/adr/0048-uptime-counts-known-time.md); null on a day without known time.',
    }),
    knownSeconds: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Seconds of the day (up to now) held by a result rather than a gap.' }),
    runs: z.number().int(),
    failures: z.number().int(),
  })
  .meta({ id: 'UptimeDay' });
export type UptimeDay = z.infer<typeof uptimeDaySchema>;

export const hourlyRunsQuery = z.strictObject({
  hours: z.coerce.number().int().min(1).max(168).default(24),
});

/**
 * Every monitor of the organization with its project and its last hours: the overview's project filter and
 * sparklines in one request (the metrics rows carry no project).
 */
export const monitorHourlyRunsSchema = z
  .object({
    monitorId: z.string(),
    project: z.string(),
    hours: z.array(z.object({ hour: z.iso.datetime(), runs: z.number().int(), failures: z.number().int() })),
  })
  .meta({ id: 'MonitorHourlyRuns' });
export type MonitorHourlyRuns = z.infer<typeof monitorHourlyRunsSchema>;

export const statusPageParams = z.strictObject({ project: scopeNameSchema });
export const statusPageBody = z
  .strictObject({
    enabled: z.boolean().meta({ description: 'enabled: required. Publish the page, or stop.' }),
  })
  .meta({ id: 'StatusPageSetting' });

/** A project's public status page setting. The slug stays when the page is switched off and on again. */
export const statusPageSchema = z
  .object({
    project: z.string(),
    enabled: z.boolean(),
    slug: z.string().meta({ description: 'Random and unguessable: the public page is /ui/status/{slug}.' }),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'StatusPage' });
export type StatusPage = z.infer<typeof statusPageSchema>;

export const publicStatusParams = z.strictObject({ slug: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/) });

const timestamp = z.iso.datetime();

/** A stretch of consecutive hours in which a monitor had failed runs (hour tier, every environment). */
export const publicIncidentSchema = z
  .object({
    monitor: z.string().meta({ description: 'The monitor’s name.' }),
    start: timestamp.meta({ description: 'The start of its first hour with a failed run.' }),
    end: timestamp.nullable().meta({
      description: 'The end of its last hour with a failed run; null while the monitor is still failing.',
    }),
    failedRuns: z.number().int(),
  })
  .meta({ id: 'PublicIncident' });
export type PublicIncident = z.infer<typeof publicIncidentSchema>;

/** A maintenance window over some of the page's monitors: its occurrence in force, or else its next one. */
const publicMaintenanceSchema = z
  .object({
    name: z.string(),
    start: timestamp,
    end: timestamp,
    active: z
      .boolean()
      .meta({ description: 'True while the occurrence is in force, false for the next one.' }),
    monitors: z.array(z.string()).meta({ description: 'The names of the page’s monitors it matches.' }),
  })
  .meta({ id: 'PublicMaintenance' });

/**
 * What anyone may read without a key: names, current health, uptime bars, incidents and maintenance windows,
 * nothing else (no ids, environments, URLs, errors or matchers).
 */
export const publicStatusPageSchema = z
  .object({
    project: z.string(),
    monitors: z.array(
      z.object({
        name: z.string(),
        status: z.enum(['healthy', 'degraded', 'failing', 'unknown']),
        days: z.array(uptimeDaySchema.pick({ day: true, uptimePercent: true })),
      }),
    ),
    incidents: z.array(publicIncidentSchema).meta({
      description: 'The last 90 days’ incidents, newest first, at most 50.',
    }),
    maintenance: z.array(publicMaintenanceSchema).meta({
      description: 'Windows in force now or still to come over any of the monitors, by name.',
    }),
  })
  .meta({ id: 'PublicStatusPage' });
export type PublicStatusPage = z.infer<typeof publicStatusPageSchema>;
