// The body and answer of `POST /monitor/bulk` (monitor-bulk.ts), apart from the route so the hub client reads the
// answer by the same schema without loading the route's dependencies.
import { z } from 'zod';
import { monitorDefinitionSchema, monitorSchema } from '../contract/monitor-definition.js';
import { errorBodySchema } from '../openapi/responses.js';
import { monitorIdParams } from './monitor.schema.js';

export const MAX_BULK_MONITORS = 100;

/** One item: the id of `PUT /monitor/{id}` and its body. */
const bulkItem = <D extends z.ZodType>(definition: D) =>
  z.strictObject({
    id: monitorIdParams.shape.id,
    definition: definition.meta({ description: 'definition: required. The body of `PUT /monitor/{id}`.' }),
  });

const bulkBody = <D extends z.ZodType>(definition: D) =>
  z.strictObject({
    monitors: z
      .array(bulkItem(definition))
      .min(1)
      .max(MAX_BULK_MONITORS)
      .meta({ description: `monitors: required. 1 to ${MAX_BULK_MONITORS} writes, each id at most once.` }),
  });

/** As documented; the route reads each definition on its own, so one invalid item refuses only itself. */
export const bulkMonitorPutSchema = bulkBody(monitorDefinitionSchema).meta({ id: 'BulkMonitorPut' });
export const bulkEnvelope = bulkBody(z.unknown());

export const bulkMonitorResultSchema = z
  .object({
    id: z.string(),
    status: z.number().int().meta({
      description:
        'The status `PUT /monitor/{id}` would answer: 200 updated or unchanged, 201 created, 4xx refused.',
    }),
    data: monitorSchema.optional().meta({ description: 'The monitor as stored, when written.' }),
    error: errorBodySchema
      .optional()
      .meta({ description: 'Why the item was refused, as a PUT would answer it.' }),
  })
  .meta({ id: 'BulkMonitorResult' });
export type BulkMonitorResult = z.infer<typeof bulkMonitorResultSchema>;
export const bulkMonitorAnswerSchema = z.object({ data: z.array(bulkMonitorResultSchema) });
