import { z } from 'zod';
import { frequencySchema } from './monitor-definition.js';

export const runStatusSchema = z.enum(['pending', 'running', 'completed', 'failed']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The monitor summary the runs list carries. */
const runMonitorSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    frequency: frequencySchema,
    locations: z.array(z.string()),
  })
  .meta({ id: 'RunMonitorSummary' });

export const runSchema = z
  .object({
    id: z.string(),
    monitorId: z.string(),
    executionGroupId: z
      .string()
      .meta({ description: 'Shared by the runs one trigger made, one per location.' }),
    location: z.string(),
    environment: z.string(),
    status: runStatusSchema,
    triggeredBy: z.enum(['schedule', 'manual']),
    startedAt: z.iso.datetime().nullable(),
    completedAt: z.iso.datetime().nullable(),
    duration_ms: z.number().nullable(),
    success: z.boolean().nullable(),
    errors: z.array(z.string()),
    steps: z.array(z.record(z.string(), z.unknown())).nullable().meta({
      description: 'Per-step results (status, timings, bytes, assertion outcomes); an extra field.',
    }),
    detailsCompacted: z
      .literal(true)
      .optional()
      .meta({
        description:
          'Present when this passing run’s step details (request, response excerpt, timings, assertions) were ' +
          'compacted away: each step keeps its node, type, status and duration (RUN_DETAILS_KEEP_MINUTES).',
      }),
    createdAt: z.iso.datetime(),
    monitor: runMonitorSummarySchema.optional().meta({ description: 'In the runs list only.' }),
  })
  .meta({ id: 'Run' });
export type Run = z.infer<typeof runSchema>;

/** What a runner reports for its run (`PUT /runs/{id}/result`), accepted once. */
export const runResultSchema = z
  .strictObject({
    success: z.boolean(),
    errors: z.array(z.string().max(4096)).max(200),
    steps: z.array(z.record(z.string(), z.unknown())).max(200),
    durationMs: z.number().min(0),
    completedAt: z.iso.datetime().optional(),
  })
  .meta({ id: 'RunResult' });
export type RunResultReport = z.infer<typeof runResultSchema>;
