import { z } from 'zod';
import { organizationIdSchema } from '../contract/roles.js';
import { organizationQuotasSchema, quotaOverridesSchema } from './organization-quotas.js';

export const organizationParams = z.strictObject({ organizationId: organizationIdSchema });

const usageSchema = z
  .object({
    monitors: z.number().int(),
    runsKept: z.number().int().meta({ description: 'Runs a day of its monitors times RUN_RETENTION_DAYS.' }),
    minFrequencySeconds: z
      .number()
      .meta({ description: 'The shortest interval of its monitors; 0 with none.' }),
    locationsPerMonitor: z
      .number()
      .int()
      .meta({ description: 'The most locations of one monitor; 0 with none.' }),
  })
  .meta({ id: 'QuotaUsage' });

export const organizationQuotaStateSchema = z
  .object({
    organizationId: z.string(),
    defaults: organizationQuotasSchema.meta({ description: 'The QUOTA_* settings of the hub.' }),
    overrides: quotaOverridesSchema,
    effective: organizationQuotasSchema.meta({
      description: 'The quotas in force: overrides over defaults.',
    }),
    usage: usageSchema,
    updatedBy: z.string().nullable().meta({ description: 'Who set the overrides; null without any.' }),
    updatedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'OrganizationQuotaState' });
export type OrganizationQuotaState = z.infer<typeof organizationQuotaStateSchema>;

export const quotaOverridesRowSchema = z
  .object({
    organizationId: z.string(),
    overrides: quotaOverridesSchema,
    updatedBy: z.string(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'QuotaOverridesRow' });
export type QuotaOverridesRow = z.infer<typeof quotaOverridesRowSchema>;
