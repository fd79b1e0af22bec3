import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { ALL_ENVIRONMENTS } from './hour-rollup.repository.js';

/** The raw-run figures the rollups cannot give; each is a short index walk per monitor. */

export interface MonitorSummaryRow {
  id: string;
  name: string;
  environment: string;
}

export async function listMonitorsOf(
  db: Db,
  organizationId: string,
  filter: { monitorId?: string | undefined; environment?: string | undefined },
): Promise<MonitorSummaryRow[]> {
  let query = db
    .selectFrom('monitors')
    .select(['id', 'name', 'environment'])
    .where('organization_id', '=', organizationId);
  if (filter.monitorId !== undefined) query = query.where('id', '=', filter.monitorId);
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
  return query.orderBy('name').orderBy('id').execute();
}

// runTimeOf (time-buckets.ts) in SQL.
const runTime = sql<Date>`coalesce(r.started_at, r.created_at)`;

/** Per monitor: failed runs since its latest success (all its failures when it never succeeded). */
export async function consecutiveFailures(
  db: Db,
  organizationId: string,
  monitorIds: readonly string[],
  environment: string | undefined,
): Promise<Map<string, number>> {
  if (monitorIds.length === 0) return new Map();
  const environmentFilter = environment === undefined ? sql`` : sql`and r.environment = ${environment}`;
  // The latest success comes from monitor_latest_runs (kept with every result), not from a walk of the runs. The
  // view's '' rows are read from each monitor's environment rows: the monitors as a constant reach its index scans,
  // where a join condition alone would read the whole organization's (ADR 0075).
  const { rows } = await sql<{ monitorId: string; count: number }>`
    select m.id as "monitorId", (select count(*)::int from runs r
      where r.organization_id = ${organizationId} and r.monitor_id = m.id and r.status = 'failed'
        ${environmentFilter}
        and r.created_at > coalesce(l.last_success_created_at, '-infinity')) as count
    from unnest(${[...monitorIds]}::text[]) as m(id)
    left join monitor_latest_runs l on l.organization_id = ${organizationId} and l.monitor_id = m.id
      and l.monitor_id = any(${[...monitorIds]}::text[]) and l.environment = ${environment ?? ALL_ENVIRONMENTS}`.execute(
    db,
  );
  return new Map(rows.map((row) => [row.monitorId, row.count]));
}

export interface RecentFailure {
  id: string;
  at: Date;
  errors: string[];
}

/** The monitor's latest failed runs in the period, newest first. */
export async function recentFailures(
  db: Db,
  organizationId: string,
  monitorId: string,
  since: Date,
  environment: string | undefined,
  limit: number,
): Promise<RecentFailure[]> {
  const { rows } = await sql<RecentFailure>`
    select r.id, ${runTime} as at, r.errors from runs r
    where r.organization_id = ${organizationId} and r.monitor_id = ${monitorId} and r.status = 'failed'
      and r.created_at >= ${since} ${environment === undefined ? sql`` : sql`and r.environment = ${environment}`}
    order by r.created_at desc limit ${limit}`.execute(db);
  return rows;
}

/** Runs not finished yet, by location and status, over every organization: the queue depth figure. */
export async function countUnfinishedRuns(db: Db) {
  return db
    .selectFrom('runs')
    .select(['location', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('status', 'in', ['pending', 'running'])
    .groupBy(['location', 'status'])
    .execute()
    .then((rows) => rows.map((row) => ({ ...row, count: Number(row.count) })));
}
