import { z } from 'zod';
import { monitorIdSchema, scopeNameSchema } from '../contract/monitor-definition.js';
import { LabelSelectorError, MAX_SELECTOR_LENGTH, parseLabelSelector } from './label-selector.js';

/** Checked here so a wrong selector is a 400 naming `labelSelector`; the repository parses it again to query. */
const labelSelectorSchema = z
  .string()
  .max(MAX_SELECTOR_LENGTH)
  .superRefine((selector, ctx) => {
    try {
      parseLabelSelector(selector);
    } catch (error) {
      if (!(error instanceof LabelSelectorError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  })
  .meta({
    description:
      'Only monitors whose labels match, as `kubectl get -l`: `team=shop,tier!=1,canary,!legacy` ' +
      '(equality and existence requirements, all of which must hold).',
  });

/** `page` is zero-based; out-of-range values are refused, never clamped. */
export const listMonitorsQuery = z.strictObject({
  project: scopeNameSchema.optional(),
  environment: scopeNameSchema.optional(),
  labelSelector: labelSelectorSchema.optional(),
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

/** `dryRun=true` runs every check of a write, the stored state's included, answers as the write would, and keeps nothing. */
export const monitorWriteQuery = z.strictObject({
  dryRun: z
    .enum(['true', 'false'])
    .optional()
    .meta({
      description:
        '`true`: validate against the hub (locations, integrations, egress, name clashes) and answer as the write ' +
        'would, changing nothing (`meerkat apply --dry-run=server`).',
    }),
});
