import { z } from 'zod';

/**
 * What a silence or maintenance window matches a run by (Alertmanager's matchers, on the labels every run has):
 * `monitor` (its name), `monitorId`, `project`, `environment` and `location`.
 */
export const MATCHER_LABELS = ['monitor', 'monitorId', 'project', 'environment', 'location'] as const;
export type MatcherLabel = (typeof MATCHER_LABELS)[number];

export const matcherSchema = z
  .strictObject({
    label: z.enum(MATCHER_LABELS).meta({ description: 'label: required. What of the run is compared.' }),
    operator: z.enum(['=', '!=']).default('=').meta({
      description:
        'operator: optional, default "=". "=" matches a label equal to one of `values`, "!=" one equal to none.',
    }),
    values: z
      .array(z.string().min(1).max(253))
      .min(1)
      .max(50)
      .meta({ description: 'values: required. 1 to 50 exact values (no regular expressions).' }),
  })
  .meta({ id: 'Matcher' });
export type Matcher = z.infer<typeof matcherSchema>;

/** Every matcher must match (AND); values of one matcher are alternatives (OR). */
const matchersSchema = z
  .array(matcherSchema)
  .min(1)
  .max(20)
  .meta({ description: 'matchers: required. 1 to 20; a run is matched when every matcher matches it.' });

const comment = z.string().min(1).max(1000);
const duration = z
  .string()
  .regex(/^(\d{1,4}[dhm])+$/, 'a duration such as 30m, 2h or 1d12h')
  .meta({ description: 'A duration: days, hours and minutes, e.g. 90m, 2h, 1d12h.' });

export const silenceCreateSchema = z
  .strictObject({
    matchers: matchersSchema,
    startsAt: z.iso.datetime({ offset: true }).optional().meta({
      description: 'startsAt: optional, default now.',
    }),
    endsAt: z.iso.datetime({ offset: true }).optional().meta({
      description: 'endsAt: the end; give it or `duration`, not both.',
    }),
    duration: duration.optional().meta({ description: 'duration: from startsAt, e.g. 2h; or give endsAt.' }),
    comment: comment.meta({ description: 'comment: required. Why, for whoever reads the audit trail.' }),
    createdBy: z.string().min(1).max(200).optional().meta({
      description: 'createdBy: optional, default the caller (the API key or token subject).',
    }),
  })
  .meta({ id: 'SilenceCreate' });
export type SilenceCreate = z.infer<typeof silenceCreateSchema>;

const timezone = z
  .string()
  .min(1)
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'an IANA time zone such as Europe/Berlin')
  .meta({ description: 'timezone: required. The IANA time zone the cron expression is read in.' });

export const maintenanceScheduleSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('once'),
      startsAt: z.iso.datetime({ offset: true }),
      endsAt: z.iso.datetime({ offset: true }),
    }),
    z.strictObject({
      type: z.literal('cron'),
      cron: z.string().min(9).max(120).meta({
        description: 'cron: required. Five fields (minute hour day month weekday): when it starts.',
      }),
      timezone,
      durationMinutes: z.int().min(1).max(10_080).meta({
        description: 'durationMinutes: required. 1 to 10080 (a week) of elapsed time from each start.',
      }),
      activeFrom: z.iso.datetime({ offset: true }).optional(),
      activeUntil: z.iso.datetime({ offset: true }).optional(),
    }),
    z.strictObject({
      type: z.literal('rrule'),
      rrule: z
        .string()
        .min(9)
        .max(500)
        .meta({
          description:
            'rrule: required. An RFC 5545 recurrence rule read in `timezone`, e.g. FREQ=WEEKLY;BYDAY=SA;BYHOUR=22;BYMINUTE=0: ' +
            'FREQ DAILY, WEEKLY, MONTHLY or YEARLY; no COUNT, UNTIL or DTSTART. `startsAt` is its DTSTART (no window ' +
            'starts before it; its wall time gives what the rule does not name) and `activeUntil` its end.',
        }),
      startsAt: z.iso.datetime({ offset: true }),
      timezone,
      durationMinutes: z.int().min(1).max(10_080).meta({
        description: 'durationMinutes: required. 1 to 10080 (a week) of elapsed time from each start.',
      }),
      activeUntil: z.iso.datetime({ offset: true }).optional(),
    }),
  ])
  .meta({ id: 'MaintenanceSchedule' });
export type MaintenanceSchedule = z.infer<typeof maintenanceScheduleSchema>;

export const maintenanceWindowDefinitionSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'lowercase letters, digits and dashes, at most 63')
      .meta({ description: 'name: required. Unique in the organization; PUT by name replaces the window.' }),
    description: z.string().max(1000).optional(),
    matchers: matchersSchema,
    schedule: maintenanceScheduleSchema,
    excludeFromFigures: z.boolean().default(true).meta({
      description:
        'excludeFromFigures: optional, default true. Runs inside the window count in no uptime, success-rate or latency figure.',
    }),
  })
  .meta({ id: 'MaintenanceWindowDefinition' });
export type MaintenanceWindowDefinition = z.infer<typeof maintenanceWindowDefinitionSchema>;
