import { sql, type RawBuilder } from 'kysely';

// What decides whether a passing run keeps its details (docs/adr/0050) or may be folded (docs/adr/0061), as SQL
// expressions over a `runs` row of the caller's query (`run` is its alias): the compaction and the fold of whole
// runs (docs/adr/0066) ask the same questions.

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Whether a fold can hold the run: its ids are `run_`/`grp_` and a UUID. The patterns are literals, as in the
 * predicate of `runs_details_unfoldable` (migration 0023), so the planner can prove a query's rows are in it.
 */
export const foldableIds = (run: RawBuilder<unknown>) =>
  sql<boolean>`(${run}.id ~ ${sql.lit(`^run_${UUID}$`)} and ${run}.execution_group_id ~ ${sql.lit(`^grp_${UUID}$`)})`;

/**
 * Records the hours of the compacted runs in `runs` (a data-modifying CTE's rows, or a table) the fold has to visit,
 * one row per monitor, location and hour (docs/adr/0083): the first compacted run of an hour inserts it, the later
 * ones find it there and write nothing. Runs a fold cannot hold are not recorded.
 */
export const recordFoldHours = (runs: RawBuilder<unknown>) => sql`
  insert into run_fold_hours (hour, organization_id, monitor_id, location)
  select distinct date_bin('1 hour', h.created_at, timestamptz 'epoch'), h.organization_id, h.monitor_id, h.location
  from ${runs} h where h.details_compacted and ${foldableIds(sql`h`)}
  on conflict do nothing`;

/**
 * Whether the run before it in its monitor and location (a row, or a fold: folded runs passed) did not pass: a
 * change of outcome, or the monitor's first run in that location.
 */
export const outcomeChanged = (
  run: RawBuilder<unknown>,
) => sql<boolean>`coalesce((select previous.success from (
    (select p.created_at as at, p.success from runs p
      where p.organization_id = ${run}.organization_id and p.monitor_id = ${run}.monitor_id
        and p.location = ${run}.location and p.created_at < ${run}.created_at and p.status in ('completed', 'failed')
      order by p.created_at desc limit 1)
    union all
    (select f.hour + f.slots[1] * interval '1 millisecond', true from run_folds f
      where f.organization_id = ${run}.organization_id and f.monitor_id = ${run}.monitor_id
        and f.location = ${run}.location and f.hour <= ${run}.created_at
        and f.hour + f.slots[1] * interval '1 millisecond' < ${run}.created_at
      order by f.hour desc, f.first_slot desc limit 1)) previous
    order by previous.at desc limit 1), false) is not true`;

/** Whether fewer than `keepLatest` runs of its monitor and location are newer (kept as rows, not folds). */
export const amongLatest = (
  run: RawBuilder<unknown>,
  keepLatest: number,
) => sql<boolean>`(select count(*) from (
    select 1 from runs n
    where n.organization_id = ${run}.organization_id and n.monitor_id = ${run}.monitor_id
      and n.location = ${run}.location and n.created_at > ${run}.created_at limit ${keepLatest}) newer) < ${keepLatest}`;

/**
 * A run's steps as the compaction keeps them: each step's node, type, status and duration, as an array of the four
 * in that order (`COMPACTED_STEP_FIELDS` of compacted-steps.ts), a JSON null for a field the step did not have. An
 * array takes about 40 bytes fewer a step than the object with the same values (docs/adr/0080);
 * `compactedStepsOf` reads both. A step compacted already stays as it is: compacting twice changes nothing.
 */
export const compactedSteps = (steps: RawBuilder<unknown>) =>
  sql`case when jsonb_typeof(${steps}) = 'array' then coalesce((
    select jsonb_agg(case when jsonb_typeof(s) = 'array' then s
      else jsonb_build_array(jsonb_strip_nulls(s -> 'nodeId'), jsonb_strip_nulls(s -> 'type'),
        jsonb_strip_nulls(s -> 'status'), jsonb_strip_nulls(s -> 'durationMs')) end order by i)
    from jsonb_array_elements(${steps}) with ordinality as steps(s, i)), '[]'::jsonb) else ${steps} end`;
