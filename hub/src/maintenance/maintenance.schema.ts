import { z } from 'zod';
import { maintenanceScheduleSchema, matcherSchema } from '../contract/maintenance-definition.js';
import { limitOffsetQuery } from '../http/paging.js';

const timestamp = z.iso.datetime();
const occurrence = z.object({ start: timestamp, end: timestamp }).meta({ id: 'MaintenanceOccurrence' });

const silenceStateSchema = z.enum(['pending', 'active', 'expired']);

export const silenceSchema = z
  .object({
    id: z.string(),
    matchers: z.array(matcherSchema),
    startsAt: timestamp,
    endsAt: timestamp,
    comment: z.string(),
    createdBy: z.string(),
    expiredBy: z.string().nullable().meta({ description: 'Who ended the silence early, if someone did.' }),
    state: silenceStateSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Silence' });
export type Silence = z.infer<typeof silenceSchema>;

export const maintenanceWindowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    matchers: z.array(matcherSchema),
    schedule: maintenanceScheduleSchema,
    excludeFromFigures: z.boolean(),
    createdBy: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    current: occurrence.nullable().meta({ description: 'The occurrence in force now, if any.' }),
    next: occurrence.nullable().meta({ description: 'The next occurrence to start, if any.' }),
  })
  .meta({ id: 'MaintenanceWindow' });
export type MaintenanceWindow = z.infer<typeof maintenanceWindowSchema>;

export const silencesQuery = z.strictObject({
  state: silenceStateSchema.optional(),
  ...limitOffsetQuery.shape,
});
export const silenceIdParams = z.strictObject({ id: z.string().min(1).max(64) });
export const windowNameParams = z.strictObject({ name: z.string().min(1).max(63) });
