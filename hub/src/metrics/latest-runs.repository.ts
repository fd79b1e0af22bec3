import { sql } from 'kysely';
import { textArray, timestampArray } from '../db/array-params.js';
import type { Monitor } from '../contract/monitor-definition.js';
import type { Executor } from '../db/database.js';
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
 */
export async function recordLatestRuns(db: Executor, runs: readonly RunRow[]): Promise<void> {
  const finished = runs.filter((run) => run.status === 'completed' || run.status === 'failed');
  if (finished.length === 0) return;
  const newer = sql`excluded.last_run_created_at >= s.last_run_created_at`;
  const latest = (column: string) =>
    sql`${sql.ref(column)} = case when ${newer} then ${sql.ref(`excluded.${column}`)} else ${sql.ref(`s.${column}`)} end`;
  const latestOf = (kind: 'success' | 'failure') => {
    const at = `last_${kind}_at`;
    const created = `last_${kind}_created_at`;
    const newerOfKind = sql`${sql.ref(`excluded.${created}`)} >= coalesce(${sql.ref(`s.${created}`)}, '-infinity')`;
    return sql`${sql.ref(at)} = case when ${newerOfKind} then ${sql.ref(`excluded.${at}`)} else ${sql.ref(`s.${at}`)} end,
      ${sql.ref(created)} = case when ${newerOfKind} then ${sql.ref(`excluded.${created}`)} else ${sql.ref(`s.${created}`)} end`;
  };
  const rows = finished.map((run) => ({ run, environment: run.environment }));
  const text = (pick: (run: RunRow) => string) => textArray(rows.map(({ run }) => pick(run)));
  await sql`
    insert into monitor_environment_latest_runs as s (organization_id, monitor_id, environment, last_run_id, last_run_status,
      last_run_success, last_run_at, last_run_duration_ms, last_run_created_at, last_success_at,
      last_success_created_at, last_failure_at, last_failure_created_at)
    select o, m, e, i, st, su, a, d, cr, case when ok then a end, case when ok then cr end,
      case when not ok then a end, case when not ok then cr end
    from (select *, st = 'completed' as ok from unnest(${text((run) => run.organization_id)},
      ${text((run) => run.monitor_id)}, ${rows.map((row) => row.environment)}::text[], ${text((run) => run.id)},
      ${text((run) => run.status)}, ${rows.map(({ run }) => run.success)}::bool[],
      ${timestampArray(rows.map(({ run }) => runTimeOf(run)))}, ${rows.map(({ run }) => run.duration_ms)}::float8[],
      ${timestampArray(rows.map(({ run }) => run.created_at))})
      with ordinality as u(o, m, e, i, st, su, a, d, cr, n)) u
    order by n
    on conflict (organization_id, monitor_id, environment) do update set
      ${latest('last_run_id')}, ${latest('last_run_status')}, ${latest('last_run_success')},
      ${latest('last_run_at')}, ${latest('last_run_duration_ms')}, ${latestOf('success')}, ${latestOf('failure')},
      last_run_created_at = greatest(s.last_run_created_at, excluded.last_run_created_at)`.execute(db);
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
