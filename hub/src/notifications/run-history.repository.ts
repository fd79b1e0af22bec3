import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/tables.js';

export interface FinishedRun {
  id: string;
  success: boolean;
  durationMs: number | null;
}

const finished = ['completed', 'failed'] as const;

/** A monitor's finished runs, the query both lookups narrow. */
function finishedRunsOf(tx: Transaction<Database>, organizationId: string, monitorId: string) {
  return tx
    .selectFrom('runs')
    .select(['id', 'success', 'duration_ms'])
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .where('status', 'in', finished);
}

function toFinishedRun(row: {
  id: string;
  success: boolean | null;
  duration_ms: number | null;
}): FinishedRun {
  return { id: row.id, success: row.success === true, durationMs: row.duration_ms };
}

/** The latest finished runs of a monitor in one location, newest first. */
export async function latestRunsInLocation(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  location: string,
  limit: number,
): Promise<FinishedRun[]> {
  const rows = await finishedRunsOf(tx, organizationId, monitorId)
    .where('location', '=', location)
    .orderBy(sql`completed_at desc nulls last`)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toFinishedRun);
}

/** The finished runs of a monitor, every location, completed within (since, until]. */
export async function runsInWindow(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  since: Date,
  until: Date,
): Promise<FinishedRun[]> {
  const rows = await finishedRunsOf(tx, organizationId, monitorId)
    .where('completed_at', '>', since)
    .where('completed_at', '<=', until)
    .execute();
  return rows.map(toFinishedRun);
}
