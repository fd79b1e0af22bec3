import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/tables.js';

export interface FinishedRun {
  id: string;
  success: boolean;
  durationMs: number | null;
}

const finished = ['completed', 'failed'] as const;

/** The latest finished runs of a monitor in one location, newest first. */
export async function latestRunsInLocation(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  location: string,
  limit: number,
): Promise<FinishedRun[]> {
  const rows = await tx
    .selectFrom('runs')
    .select(['id', 'success', 'duration_ms'])
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .where('location', '=', location)
    .where('status', 'in', finished)
    .orderBy(sql`completed_at desc nulls last`)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, success: r.success === true, durationMs: r.duration_ms }));
}

/** The finished runs of a monitor, every location, completed within (since, until]. */
export async function runsInWindow(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  since: Date,
  until: Date,
): Promise<FinishedRun[]> {
  const rows = await tx
    .selectFrom('runs')
    .select(['id', 'success', 'duration_ms'])
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .where('status', 'in', finished)
    .where('completed_at', '>', since)
    .where('completed_at', '<=', until)
    .execute();
  return rows.map((r) => ({ id: r.id, success: r.success === true, durationMs: r.duration_ms }));
}
