import { z } from 'zod';
import { monitorIdSchema, scopeNameSchema } from '../contract/monitor-definition.js';
import { runStatusSchema } from '../contract/run.js';

export const triggerRunBody = z
  .strictObject({
    environment: z.string().min(1).max(63),
    location: scopeNameSchema
      .optional()
      .meta({ description: 'Only this location (one of the monitor’s); default: all of them.' }),
  })
  .meta({ id: 'TriggerRun' });

export const triggerRunParams = z.strictObject({ monitorId: monitorIdSchema });

export const listRunsQuery = z.strictObject({
  monitorId: monitorIdSchema.optional(),
  status: runStatusSchema.optional(),
  executionGroupId: z.string().min(1).max(64).optional(),
  project: scopeNameSchema.optional().meta({ description: 'Only runs of this project’s monitors.' }),
  environment: scopeNameSchema.optional().meta({ description: 'Only runs in this environment.' }),
  page: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const runIdParams = z.strictObject({ id: z.string().min(1).max(64) });
