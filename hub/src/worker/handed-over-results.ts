import { z } from 'zod';
import type { ExecutedScheduledResult } from '../runs/run-finished.js';
import type { HandedOverResult } from '../runs/run-queue.js';

/** What the queue keeps of a checked run whose write waits: its row's columns and its result, dates as text. */
const executedSchema = z.object({
  run: z.object({
    organization_id: z.string(),
    id: z.string(),
    monitor_id: z.string(),
    execution_group_id: z.string(),
    location: z.string(),
    environment: z.string(),
    schedule_slot: z.string(),
    started_at: z.coerce.date(),
  }),
  result: z.object({
    success: z.boolean(),
    errors: z.array(z.string()),
    steps: z.array(z.unknown()).nullable(),
    completedAt: z.coerce.date(),
    durationMs: z.number().nullable(),
  }),
});

/** A checked run as the queue keeps it until the database takes it (JSON: its dates become text). */
export function handOver(executed: ExecutedScheduledResult): HandedOverResult {
  const { run } = executed;
  return {
    organizationId: run.organization_id,
    monitorId: run.monitor_id,
    location: run.location,
    slot: run.schedule_slot,
    executed: JSON.parse(JSON.stringify(executed)) as unknown,
  };
}

/** The checked run a queue gave back; throws on anything `handOver` did not make (no retry mends that). */
export function readHandedOver(result: HandedOverResult): ExecutedScheduledResult {
  return executedSchema.parse(result.executed);
}
