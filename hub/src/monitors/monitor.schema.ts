import { z } from 'zod';
import { monitorIdSchema, scopeNameSchema } from '../contract/monitor-definition.js';

/** `page` is zero-based; out-of-range values are refused, never clamped. */
export const listMonitorsQuery = z.strictObject({
  project: scopeNameSchema.optional(),
  environment: scopeNameSchema.optional(),
  page: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const monitorByNameQuery = z.strictObject({
  project: scopeNameSchema
    .optional()
    .meta({ description: 'Required when the name is used in several projects.' }),
  environment: scopeNameSchema.default('default'),
  name: z.string().min(1).max(200),
  version: z
    .literal('latest')
    .optional()
    .meta({ description: '`latest` upgrades a monitor stored under an older schema.' }),
});

export const monitorIdParams = z.strictObject({ id: monitorIdSchema });
