import { sql } from 'kysely';
import { textArray, timestampArray } from '../db/array-params.js';
import type { Monitor } from '../contract/monitor-definition.js';
import type { Executor } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import type { RunRow } from '../runs/run.repository.js';
import { ALL_ENVIRONMENTS } from './hour-rollup.repository.js';
import { runTimeOf } from './time-buckets.js';

export interface LatestRuns {
  monitorId: string;
  lastRunId: string | null;
  lastRunStatus: 'completed' | 'failed' | null;
  lastRunSuccess: boolean | null;
  lastRunAt: Date | null;
  lastRunDurationMs: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
}

/**
 * Makes each finished run its monitor's latest in its environment when it was created after the one recorded, and
 * likewise its latest success or failure: "latest" is by creation, as reading the runs newest first would give,
 * whatever order results land in. The latest in every environment ('') is read from these rows by the
 * `monitor_latest_runs` view, not written (ADR 0075). Runs in the result transaction, one statement for runs of
 * distinct monitors.
 *
 * Rows that exist (every run but a monitor's first in an environment) get a plain `update`, the others a plain
 * `insert`, in one statement and a savepoint: `insert ... on conflict do update` logs a tuple lock before each
 * update (about 53 bytes of WAL a run, docs/adr/0078). The rows are taken in key order. When the statement fails
 * as a race with another writer can make it (that writer committed a new row between the update and the insert:
 * 23505; the two took the same rows in the other order: 40P01), it goes back to the savepoint and writes the upsert,
 * as before. A batch naming one row twice goes to the upsert at once, which refuses it as it always did.
 */
export async function recordLatestRuns(db: Executor, runs: readonly RunRow[]): Promise<void> {
  const finished = runs
    .filter((run) => run.status === 'completed' || run.status === 'failed')
    .sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
  if (finished.length === 0) return;
  if (!db.isTransaction) return db.transaction().execute((tx) => recordLatestRuns(tx, finished));
  if (new Set(finished.map((run) => keyOf(run).join('\u0000'))).size === finished.length) {
    await sql`savepoint latest_runs`.execute(db);
    try {
      await sql`
        with u as (${latestRowsOf(finished)}),
        updated as (
          update monitor_environment_latest_runs s set
            ${latest('last_run_id', 'i')}, ${latest('last_run_status', 'st')}, ${latest('last_run_success', 'su')},
            ${latest('last_run_at', 'a')}, ${latest('last_run_duration_ms', 'd')},
            ${latestOf('success', 'ls', 'lsc')}, ${latestOf('failure', 'lf', 'lfc')},
            last_run_created_at = greatest(s.last_run_created_at, u.cr)
          from u where s.organization_id = u.o and s.monitor_id = u.m and s.environment = u.e
          returning u.n)
        insert into monitor_environment_latest_runs (${LATEST_COLUMNS})
        select o, m, e, i, st, su, a, d, cr, ls, lsc, lf, lfc from u
        where n not in (select n from updated)
        order by n`.execute(db);
      await sql`release savepoint latest_runs`.execute(db);
      return;
    } catch (error) {
      if (!hasSqlState(error, SqlState.uniqueViolation) && !hasSqlState(error, SqlState.deadlockDetected))
        throw error;
      await sql`rollback to savepoint latest_runs`.execute(db);
    }
  }
  await sql`
    insert into monitor_environment_latest_runs as s (${LATEST_COLUMNS})
    select o, m, e, i, st, su, a, d, cr, ls, lsc, lf, lfc from (${latestRowsOf(finished)}) u
    order by n
    on conflict (organization_id, monitor_id, environment) do update set
      ${latest('last_run_id')}, ${latest('last_run_status')}, ${latest('last_run_success')},
      ${latest('last_run_at')}, ${latest('last_run_duration_ms')},
      ${latestOf('success')}, ${latestOf('failure')},
      last_run_created_at = greatest(s.last_run_created_at, excluded.last_run_created_at)`.execute(db);
}

const LATEST_COLUMNS = sql`organization_id, monitor_id, environment, last_run_id, last_run_status,
  last_run_success, last_run_at, last_run_duration_ms, last_run_created_at, last_success_at,
  last_success_created_at, last_failure_at, last_failure_created_at`;

/** A row of the table as a run makes it, in order (`n`); `ls`/`lsc` and `lf`/`lfc` its success or failure. */
function latestRowsOf(runs: readonly RunRow[]) {
  const text = (pick: (run: RunRow) => string) => textArray(runs.map(pick));
  return sql`select o, m, e, i, st, su, a, d, cr, case when ok then a end as ls, case when ok then cr end as lsc,
      case when not ok then a end as lf, case when not ok then cr end as lfc, n
    from (select *, st = 'completed' as ok from unnest(${text((run) => run.organization_id)},
      ${text((run) => run.monitor_id)}, ${runs.map((run) => run.environment)}::text[], ${text((run) => run.id)},
      ${text((run) => run.status)}, ${runs.map((run) => run.success)}::bool[],
      ${timestampArray(runs.map((run) => runTimeOf(run)))}, ${runs.map((run) => run.duration_ms)}::float8[],
      ${timestampArray(runs.map((run) => run.created_at))})
      with ordinality as u(o, m, e, i, st, su, a, d, cr, n)) r`;
}

/** The new value of `column` (`from`, the row the run makes: `excluded` in the upsert, `u` in the update). */
const latest = (column: string, field?: string) => {
  const from = field === undefined ? sql.ref(`excluded.${column}`) : sql.ref(`u.${field}`);
  const created = field === undefined ? sql.ref('excluded.last_run_created_at') : sql.ref('u.cr');
  return sql`${sql.ref(column)} = case when ${created} >= s.last_run_created_at then ${from} else ${sql.ref(`s.${column}`)} end`;
};

const latestOf = (kind: 'success' | 'failure', atField?: string, createdField?: string) => {
  const at = `last_${kind}_at`;
  const created = `last_${kind}_created_at`;
  const newAt = atField === undefined ? sql.ref(`excluded.${at}`) : sql.ref(`u.${atField}`);
  const newCreated =
    createdField === undefined ? sql.ref(`excluded.${created}`) : sql.ref(`u.${createdField}`);
  const newer = sql`${newCreated} >= coalesce(${sql.ref(`s.${created}`)}, '-infinity')`;
  return sql`${sql.ref(at)} = case when ${newer} then ${newAt} else ${sql.ref(`s.${at}`)} end,
    ${sql.ref(created)} = case when ${newer} then ${newCreated} else ${sql.ref(`s.${created}`)} end`;
};

const keyOf = (run: RunRow): [string, string, string] => [
  run.organization_id,
  run.monitor_id,
  run.environment,
];

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] ?? '') < (b[i] ?? '') ? -1 : 1;
  return 0;
}

/** Per monitor: its latest finished run, latest success and latest failure (any time, not only the period). */
export async function latestRuns(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  environment: string | undefined,
): Promise<Map<string, LatestRuns>> {
  if (monitorIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('monitor_latest_runs')
    .select([
      'monitor_id as monitorId',
      'last_run_id as lastRunId',
      'last_run_status as lastRunStatus',
      'last_run_success as lastRunSuccess',
      'last_run_at as lastRunAt',
      'last_run_duration_ms as lastRunDurationMs',
      'last_success_at as lastSuccessAt',
      'last_failure_at as lastFailureAt',
    ])
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment ?? ALL_ENVIRONMENTS)
    .where('monitor_id', 'in', monitorIds)
    .execute();
  return new Map(rows.map((row) => [row.monitorId, row]));
}

/**
 * Forgets latest runs created before `before`, once retention has deleted (or is deleting) those runs, so the
 * figures never name a run that is gone: as reading the remaining runs would give.
 */
export async function forgetLatestRunsBefore(db: Executor, before: Date): Promise<void> {
  await db.deleteFrom('monitor_environment_latest_runs').where('last_run_created_at', '<', before).execute();
  for (const kind of ['success', 'failure'] as const)
    await db
      .updateTable('monitor_environment_latest_runs')
      .set({ [`last_${kind}_at`]: null, [`last_${kind}_created_at`]: null })
      .where(`last_${kind}_created_at`, '<', before)
      .execute();
}

/**
 * Every monitor (of `organizationId`, or of all), its frequency, creation and the start of its latest run in any
 * environment. It reads the environment rows, not the `monitor_latest_runs` view: the view's '' row looks up each
 * monitor's newest success and failure, two index probes a monitor this read never uses (ADR 0075).
 */
export async function listMonitorsWithLatestRun(db: Executor, organizationId?: string) {
  let latest = db
    .selectFrom('monitor_environment_latest_runs')
    .select(['organization_id', 'monitor_id', (eb) => eb.fn.max('last_run_at').as('last_run_at')])
    .groupBy(['organization_id', 'monitor_id']);
  if (organizationId !== undefined) latest = latest.where('organization_id', '=', organizationId);
  let query = db
    .selectFrom('monitors as m')
    .leftJoin(latest.as('l'), (join) =>
      join.onRef('l.organization_id', '=', 'm.organization_id').onRef('l.monitor_id', '=', 'm.id'),
    )
    .select([
      'm.organization_id as organizationId',
      'm.id as monitorId',
      sql<Monitor['frequency']>`m.definition->'frequency'`.as('frequency'),
      'm.created_at as createdAt',
      'l.last_run_at as lastRunAt',
    ]);
  if (organizationId !== undefined) query = query.where('m.organization_id', '=', organizationId);
  return query.execute();
}
