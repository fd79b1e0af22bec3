import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/tables.js';
import { foldedFinishedRuns } from '../runs/run-fold.repository.js';

export interface FinishedRun {
  id: string;
  success: boolean;
  durationMs: number | null;
}

const finished = ['completed', 'failed'] as const;
const HOUR_MS = 3_600_000;

/** A monitor's finished runs, the query both lookups narrow. */
function finishedRunsOf(tx: Transaction<Database>, organizationId: string, monitorId: string) {
  return tx
    .selectFrom('runs')
    .select(['id', 'success', 'duration_ms', 'completed_at'])
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

/**
 * The latest finished runs of a monitor in one location, newest first: its rows and its folded passing runs
 * (docs/adr/0061-fold-old-passing-runs.md), so a count of consecutive failures never skips a folded pass.
 */
export async function latestRunsInLocation(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  location: string,
  limit: number,
): Promise<FinishedRun[]> {
  const rows = finishedRunsOf(tx, organizationId, monitorId)
    .where('location', '=', location)
    .orderBy(sql`completed_at desc nulls last`)
    .orderBy('id', 'desc')
    .limit(limit);
  const folded = foldedFinishedRuns(organizationId, monitorId, { location, newestFolds: limit });
  const { rows: latest } = await sql<{ id: string; success: boolean | null; duration_ms: number | null }>`
    select id, success, duration_ms from ((${rows}) union all (${folded})) as runs
    order by completed_at desc nulls last, id desc limit ${limit}`.execute(tx);
  return latest.map(toFinishedRun);
}

/** The finished runs of a monitor, every location, completed within (since, until]: rows and folded runs. */
export async function runsInWindow(
  tx: Transaction<Database>,
  organizationId: string,
  monitorId: string,
  since: Date,
  until: Date,
): Promise<FinishedRun[]> {
  const rows = finishedRunsOf(tx, organizationId, monitorId)
    .where('completed_at', '>', since)
    .where('completed_at', '<=', until);
  // A folded run ends after its hour began: the folds of the hours from one before `since` hold every candidate.
  const folded = foldedFinishedRuns(organizationId, monitorId, {
    hoursFrom: new Date(since.getTime() - HOUR_MS),
    hoursTo: until,
  });
  const { rows: inWindow } = await sql<{ id: string; success: boolean | null; duration_ms: number | null }>`
    select id, success, duration_ms from ((${rows}) union all (${folded})) as runs
    where completed_at > ${since} and completed_at <= ${until}`.execute(tx);
  return inWindow.map(toFinishedRun);
}
