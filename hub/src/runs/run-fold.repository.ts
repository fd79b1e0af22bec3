import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { amongLatest, compactedSteps, foldableIds, outcomeChanged } from './run-keep.repository.js';
import type { RunRow } from './run.repository.js';

// Old passing runs folded into one row per monitor, location and hour (docs/adr/0061-fold-old-passing-runs.md).

const HOUR = sql`date_bin('1 hour', r.created_at, timestamptz 'epoch')`;
const RUN_ID = /^run_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * Whether a fold holds the slot of monitor `monitor` at `location` due at `at` (SQL expressions of the caller's
 * query): a probe of the fold key in the one day partition of the slot's hour.
 */
export const foldHoldsSlot = (
  organization: RawBuilder<unknown>,
  monitor: RawBuilder<unknown>,
  location: RawBuilder<unknown>,
  at: RawBuilder<unknown>,
) => sql<boolean>`exists (select 1 from run_folds f
  where f.organization_id = ${organization} and f.monitor_id = ${monitor} and f.location = ${location}
    and f.hour = date_bin('1 hour', ${at}, timestamptz 'epoch')
    and round(extract(epoch from ${at} - f.hour) * 1000)::int = any(f.slots))`;

/** Whole runs the fold may take itself, with the compaction's own tests (docs/adr/0066). */
export interface WholeRunFolding {
  /** RUN_DETAILS_KEEP_LATEST: the newest runs of each monitor and location are never folded. */
  keepLatest: number;
  /** Now less RUN_DETAILS_KEEP_MINUTES: only runs created before it may lose their details. */
  detailsBefore: Date;
}

/**
 * Folds the compacted runs of up to `monitors` monitors and locations in the oldest hour that has some, created
 * before `before` (an hour's start: whole hours are folded), in one statement: they are deleted from `runs` and
 * their compact columns inserted as one row per monitor, location, environment and hour. The hours and monitors
 * with compacted runs are the rows of `run_fold_hours` (docs/adr/0083), deleted as their hour is folded, so one
 * fold holds all of a monitor's hour, not a batch's slice of it. A failure leaves every run where it was. Runs
 * whose ids are not `run_`/`grp_` and a UUID are never folded.
 * With `wholeRuns` passing scheduled runs the compaction left whole are folded too, when it would have compacted
 * them (neither a change of outcome nor among the latest), their steps compacted as they are folded; the changes
 * of outcome it meets are marked kept (`details_compacted` false), as the compaction marks them.
 * Resolves with the runs folded, the fold rows written (none: nothing left to fold), the runs marked kept and the
 * rows of `run_fold_hours` deleted (an hour whose runs went otherwise, e.g. with their monitor, has one left).
 */
export async function foldCompactedRuns(
  db: Executor,
  options: { before: Date; monitors: number; wholeRuns?: WholeRunFolding | undefined },
): Promise<{ runs: number; folds: number; kept: number; cleared: number }> {
  const { before, monitors, wholeRuns } = options;
  const whole = (run: RawBuilder<unknown>) =>
    wholeRuns === undefined
      ? sql<boolean>`false`
      : sql<boolean>`(${run}.details_compacted is null and ${run}.success and ${run}.triggered_by = 'schedule'
          and ${run}.created_at < ${wholeRuns.detailsBefore} and not ${amongLatest(run, wholeRuns.keepLatest)})`;
  const candidate = (run: RawBuilder<unknown>) =>
    sql<boolean>`${run}.created_at < ${before} and ${foldableIds(run)} and (${run}.details_compacted or ${whole(run)})`;
  const r = sql`r`;
  const { rows } = await sql<{ runs: string; folds: string; kept: string; cleared: string }>`
    with oldest as (
      select date_bin('1 hour', min(c.at), timestamptz 'epoch') as hour from (
        (select q.hour as at from run_fold_hours q where q.hour < ${before} order by q.hour limit 1)
        union all
        (select c.created_at from runs c where ${whole(sql`c`)} and ${candidate(sql`c`)}
          order by c.created_at limit 1)) c
    ), picked as (
      select distinct p.organization_id, p.monitor_id, p.location from (
        (select q.organization_id, q.monitor_id, q.location from oldest join run_fold_hours q on q.hour = oldest.hour
          order by q.organization_id, q.monitor_id, q.location limit ${monitors})
        union all
        (select c.organization_id, c.monitor_id, c.location from oldest cross join lateral (
          select c.organization_id, c.monitor_id, c.location from runs c
          where ${whole(sql`c`)} and ${candidate(sql`c`)}
            and c.created_at >= oldest.hour and c.created_at < oldest.hour + interval '1 hour'
          order by c.created_at limit ${monitors}) c)) p
    ), picked_runs as (
      select r.organization_id, r.id, r.created_at, r.details_compacted is null and ${outcomeChanged(r)} as change
      from runs r join picked p
        on (r.organization_id, r.monitor_id, r.location) = (p.organization_id, p.monitor_id, p.location)
      cross join oldest o
      where r.created_at >= o.hour and r.created_at < o.hour + interval '1 hour' and ${candidate(r)}
    ), cleared as (
      delete from run_fold_hours q using picked p
      where q.hour = (select hour from oldest)
        and (q.organization_id, q.monitor_id, q.location) = (p.organization_id, p.monitor_id, p.location)
      returning 1
    ), kept as (
      update runs r set details_compacted = false from picked_runs k
      where k.change and (r.organization_id, r.id, r.created_at) = (k.organization_id, k.id, k.created_at)
      returning 1
    ), moved as (
      delete from runs r using picked_runs k
      where not k.change and (r.organization_id, r.id, r.created_at) = (k.organization_id, k.id, k.created_at)
      returning r.organization_id, r.monitor_id, r.location, r.environment, r.created_at, r.id,
        r.execution_group_id, r.started_at, r.completed_at, r.duration_ms,
        case when r.details_compacted then r.steps else ${compactedSteps(sql`r.steps`)} end as steps,
        ${HOUR} as hour, round(extract(epoch from r.created_at - ${HOUR}) * 1000)::int as slot
    ), folded as (
      insert into run_folds (organization_id, monitor_id, location, environment, hour, first_slot, run_ids,
        group_ids, slots, started, completed, durations, steps)
      select organization_id, monitor_id, location, environment, hour, min(slot),
        array_agg(substr(id, 5)::uuid order by slot), array_agg(substr(execution_group_id, 5)::uuid order by slot),
        array_agg(slot order by slot),
        array_agg(round(extract(epoch from started_at - created_at) * 1000)::int order by slot),
        array_agg(round(extract(epoch from completed_at - started_at) * 1000)::int order by slot),
        array_agg(duration_ms::real order by slot), jsonb_agg(steps order by slot)
      from moved group by organization_id, monitor_id, location, environment, hour
      returning cardinality(run_ids) as runs
    )
    select coalesce(sum(runs), 0) as runs, count(*) as folds, (select count(*) from kept) as kept,
      (select count(*) from cleared) as cleared
    from folded`.execute(db);
  const row = rows[0];
  return {
    runs: Number(row?.runs ?? 0),
    folds: Number(row?.folds ?? 0),
    kept: Number(row?.kept ?? 0),
    cleared: Number(row?.cleared ?? 0),
  };
}

/**
 * Deletes the rows of `run_fold_hours` of hours before `before` (the runs' retention, ADR 0083): with the fold off
 * nothing else deletes them, and a monitor's hour past the retention has no runs left to fold.
 */
export async function forgetFoldHoursBefore(db: Executor, before: Date): Promise<void> {
  await sql`delete from run_fold_hours where hour < ${before}`.execute(db);
}

/** A folded run as the row it was once compacted (ADR 0050): passing, scheduled, its times and compacted steps. */
export async function findFoldedRun(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<RunRow | undefined> {
  const uuid = RUN_ID.exec(id)?.[1];
  if (uuid === undefined) return undefined;
  const { rows } = await sql<RunRow>`
    select f.organization_id, ${id} as id, f.monitor_id, 'grp_' || f.group_ids[i] as execution_group_id,
      f.location, f.environment, 'completed' as status, 'schedule' as triggered_by,
      (extract(epoch from f.hour) * 1000 + f.slots[i])::bigint::text as schedule_slot,
      at + f.started[i] * interval '1 millisecond' as started_at,
      at + (f.started[i] + f.completed[i]) * interval '1 millisecond' as completed_at,
      f.durations[i]::float8 as duration_ms, true as success, '[]'::jsonb as errors, f.steps -> (i - 1) as steps,
      null as browser, true as details_compacted, at as created_at
    from run_folds f
    cross join lateral array_position(f.run_ids, ${uuid}::uuid) as i
    cross join lateral (select f.hour + f.slots[i] * interval '1 millisecond' as at) as t
    where f.organization_id = ${organizationId} and f.run_ids @> array[${uuid}::uuid]
    limit 1`.execute(db);
  return rows[0];
}

/**
 * The folded runs of a monitor (of one location when given) as finished runs: id, outcome, duration and end.
 * `newestFolds` keeps the query to that many of the newest folds (each holds at least one run).
 */
export function foldedFinishedRuns(
  organizationId: string,
  monitorId: string,
  options: { location?: string; newestFolds?: number; hoursFrom?: Date; hoursTo?: Date },
) {
  const { location, newestFolds, hoursFrom, hoursTo } = options;
  return sql<{ id: string; success: boolean; duration_ms: number | null; completed_at: Date | null }>`
    select 'run_' || u.id as id, true as success, u.duration::float8 as duration_ms,
      f.hour + (u.slot + u.started + u.completed) * interval '1 millisecond' as completed_at
    from (select * from run_folds
      where organization_id = ${organizationId} and monitor_id = ${monitorId}
        ${location === undefined ? sql`` : sql`and location = ${location}`}
        ${hoursFrom === undefined ? sql`` : sql`and hour >= ${hoursFrom}`}
        ${hoursTo === undefined ? sql`` : sql`and hour <= ${hoursTo}`}
      ${newestFolds === undefined ? sql`` : sql`order by hour desc, first_slot desc limit ${newestFolds}`}) f
    cross join lateral unnest(f.run_ids, f.slots, f.started, f.completed, f.durations)
      as u(id, slot, started, completed, duration)`;
}
