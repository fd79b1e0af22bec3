import { sql, type RawBuilder } from 'kysely';
import { timestampArray } from '../db/array-params.js';
import type { Executor } from '../db/database.js';

/** A coarser rollup tier: its table, its time column and the width of one of its rows. */
export interface RollupTier {
  table: 'run_rollups_hour' | 'run_rollups_day';
  column: 'hour' | 'day';
  width: '1 hour' | '1 day';
}

export const HOUR_TIER: RollupTier = { table: 'run_rollups_hour', column: 'hour', width: '1 hour' };
export const DAY_TIER: RollupTier = { table: 'run_rollups_day', column: 'day', width: '1 day' };

/**
 * The known seconds of an hour or day rollup row aliased `alias`: its `known_seconds`, or for a row summed before
 * migration 0016 (null), all of its time from its first minute to its end, as its uptime counted it then.
 */
export const KNOWN_SECONDS = (alias: string, column: 'hour' | 'day') =>
  sql`coalesce(${sql.ref(`${alias}.known_seconds`)}, extract(epoch from ${sql.ref(`${alias}.${column}`)}
    + ${sql.raw(column === 'hour' ? `interval '1 hour'` : `interval '1 day'`)} - ${sql.ref(`${alias}.first_minute`)}))`;

/**
 * Recomputes the rows of `tier` that `pieces` fall into, from those pieces alone. A piece is a finer rollup
 * row (a minute, or an hour) in one shape: `first_at` (its first result), `internal_end`, `internal_up` and
 * `internal_known` (the seconds it was up, and known, from `first_at` to `internal_end`, which a minute does not
 * have), its sums and its last result (null: a gap). The tier row sums them, and its uptime adds to their own
 * the time from each piece's end to the next piece's first result (or the row's end) while that piece's last
 * result was a success; its known seconds, the time while that last result was not a gap
 * (docs/adr/0048-uptime-counts-known-time.md). Pieces must be whole:
 * every piece of each (monitor, environment, row) touched, or the recomputed row covers only some of them.
 */
export async function refreshTier(
  db: Executor,
  tier: RollupTier,
  pieces: RawBuilder<unknown>,
): Promise<void> {
  await sql`
    insert into ${sql.table(tier.table)} (organization_id, monitor_id, ${sql.ref(tier.column)}, environment,
      ${TIER_COLUMNS})
    ${tierRows(tier, pieces)}
    on conflict (organization_id, monitor_id, ${sql.ref(tier.column)}, environment) do update set
      run_count = excluded.run_count, success_count = excluded.success_count,
      failure_count = excluded.failure_count, duration_count = excluded.duration_count,
      duration_sum_ms = excluded.duration_sum_ms, duration_min_ms = excluded.duration_min_ms,
      duration_max_ms = excluded.duration_max_ms, histogram = excluded.histogram,
      error_classes = excluded.error_classes, first_minute = excluded.first_minute,
      up_seconds = excluded.up_seconds, known_seconds = excluded.known_seconds, last_started_at = excluded.last_started_at,
      last_success = excluded.last_success`.execute(db);
}

/** The columns of a tier row after its key (organization, monitor, hour or day, environment), as `tierRows` gives them. */
export const TIER_COLUMNS = sql`run_count, success_count, failure_count, duration_count, duration_sum_ms,
  duration_min_ms, duration_max_ms, histogram, error_classes, first_minute, up_seconds, known_seconds,
  last_started_at, last_success`;

/**
 * The rows of `tier` that `pieces` sum to (see `refreshTier`), as a query with the table's columns: its key
 * (`organization_id`, `monitor_id`, the tier's column, `environment`), then TIER_COLUMNS.
 */
export function tierRows(tier: RollupTier, pieces: RawBuilder<unknown>): RawBuilder<unknown> {
  const width = sql.raw(`interval '${tier.width}'`);
  const key = sql`organization_id, monitor_id, bucket, environment`;
  return sql`
    with scoped as (
      select p.*, date_bin(${width}, p.first_at, timestamptz 'epoch') as bucket from (${pieces}) p
    ), spans as (
      select s.*, coalesce(lead(s.first_at) over w, s.bucket + ${width}) as until,
        row_number() over (partition by ${key} order by s.first_at desc, s.last_started_at desc) as from_last
      from scoped s
      window w as (partition by ${key} order by s.first_at, s.last_started_at)
    ), histograms as (
      select ${key}, jsonb_object_agg(k, n) as counts from (
        select ${key}, m.key as k, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.histogram) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), errors as (
      select ${key}, jsonb_object_agg(k, n) as counts from (
        select ${key}, m.key as k, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.error_classes) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), totals as (
      select ${key}, sum(run_count)::int as run_count, sum(success_count)::int as success_count,
        sum(failure_count)::int as failure_count, sum(duration_count)::int as duration_count,
        sum(duration_sum_ms) as duration_sum_ms, min(duration_min_ms) as duration_min_ms,
        max(duration_max_ms) as duration_max_ms, min(first_at) as first_minute,
        sum(internal_up) + coalesce(sum(extract(epoch from greatest(until, internal_end) - internal_end))
          filter (where last_success), 0) as up_seconds,
        sum(internal_known) + coalesce(sum(extract(epoch from greatest(until, internal_end) - internal_end))
          filter (where last_success is not null), 0) as known_seconds,
        max(last_started_at) as last_started_at, bool_or(last_success) filter (where from_last = 1) as last_success
      from spans group by 1, 2, 3, 4
    )
    select t.organization_id, t.monitor_id, t.bucket as ${sql.ref(tier.column)}, t.environment, t.run_count,
      t.success_count, t.failure_count, t.duration_count, t.duration_sum_ms, t.duration_min_ms, t.duration_max_ms,
      coalesce(hi.counts, '{}'::jsonb) as histogram, coalesce(er.counts, '{}'::jsonb) as error_classes,
      t.first_minute, t.up_seconds, t.known_seconds, t.last_started_at, t.last_success
    from totals t
    left join histograms hi using (organization_id, monitor_id, bucket, environment)
    left join errors er using (organization_id, monitor_id, bucket, environment)`;
}

/** A row of a tier one run changed: its monitor's environment and time `at` (the hour or the day). */
export interface TierKey {
  organizationId: string;
  monitorId: string;
  environment: string;
  at: Date;
}

/** `keys` as a relation `k(organization_id, monitor_id, environment, at)`, for a condition to join against. */
export function tierKeyRows(keys: readonly TierKey[]): RawBuilder<unknown> {
  return sql`unnest(${keys.map((k) => k.organizationId)}::text[], ${keys.map((k) => k.monitorId)}::text[],
    ${keys.map((k) => k.environment)}::text[], ${timestampArray(keys.map((k) => k.at))})
    as k(organization_id, monitor_id, environment, at)`;
}

/** One run's contribution to the rows of a tier: its own environment's and every environment's. */
export interface TierIncrement extends RunCounts {
  organizationId: string;
  monitorId: string;
  environment: string;
  /** The start of the tier row the run falls in (its hour, or its day). */
  at: Date;
  minute: Date;
  startedAt: Date;
}

/** One run's counts, as a rollup row holds them. */
export interface RunCounts {
  success: boolean;
  durationMs: number | null;
  durationBucket: number | null;
  errorClass: string | null;
}

/** The columns a run's counts fill, in the order `RUN_COUNT_VALUES` gives them. */
export const RUN_COUNT_COLUMNS = sql`run_count, success_count, failure_count, duration_count, duration_sum_ms,
  duration_min_ms, duration_max_ms, histogram, error_classes`;

/**
 * Runs' counts as four arrays, one element per row, for `unnest`: success, duration, histogram bucket and error
 * class (db/array-params.ts).
 */
export function runCountArrays(runs: readonly RunCounts[]): RawBuilder<unknown> {
  return sql`${runs.map((r) => r.success)}::bool[], ${runs.map((r) => r.durationMs)}::float8[],
    ${runs.map((r) => r.durationBucket)}::int[], ${runs.map((r) => r.errorClass)}::text[]`;
}

/** The values of RUN_COUNT_COLUMNS from the unnested `runCountArrays`, named `s`, `d`, `b` and `c`. */
export const RUN_COUNT_VALUES = sql`1, s::int, 1 - s::int, (d is not null)::int, coalesce(d, 0), d, d,
  case when b is null then '{}'::jsonb else jsonb_build_object(b, 1) end,
  case when c is null then '{}'::jsonb else jsonb_build_object(c, 1) end`;

/** `set` assignments adding the `excluded` row's counts (RUN_COUNT_COLUMNS, one run) to those of `alias`. */
export function addRunCounts(alias: string): RawBuilder<unknown> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  const addMap = (column: 'histogram' | 'error_classes') =>
    sql`${sql.ref(column)} = ${ref(column)} || coalesce((select jsonb_object_agg(key,
      coalesce((${ref(column)} ->> key)::int, 0) + value::int) from ${sql.raw(`jsonb_each_text(excluded.${column})`)}),
      '{}'::jsonb)`;
  return sql`run_count = ${ref('run_count')} + 1,
    success_count = ${ref('success_count')} + excluded.success_count,
    failure_count = ${ref('failure_count')} + excluded.failure_count,
    duration_count = ${ref('duration_count')} + excluded.duration_count,
    duration_sum_ms = ${ref('duration_sum_ms')} + excluded.duration_sum_ms,
    duration_min_ms = least(${ref('duration_min_ms')}, excluded.duration_min_ms),
    duration_max_ms = greatest(${ref('duration_max_ms')}, excluded.duration_max_ms),
    ${addMap('histogram')}, ${addMap('error_classes')}`;
}

/**
 * Adds runs of distinct monitors to the rows of `tier` (each to its environment's row and to every environment's,
 * `allEnvironments`), one statement for all, in the order given (organization then monitor: writers of one
 * monitor queue on its rows instead of deadlocking). Sums, extremes and counts are added to. So is the uptime: a
 * row holds the seconds from its first result to its end during which the latest result was a success, as if
 * the latest result held until the end; a result later than every other of the row changes the state from its
 * minute to the end, so the row gains or loses that stretch (and, after a gap, gains it as known time). A result earlier than the row's last minute would
 * change a stretch the row cannot see: its row is locked and left as it was, and its key returned (with that
 * row's environment), to be recomputed from the finer tier (`refreshTier`, which must follow in the same
 * transaction) or, where the finer rows are gone, added to with `addRunCountsOnly`.
 */
export async function addRunsToTier(
  db: Executor,
  tier: RollupTier,
  runs: readonly TierIncrement[],
  allEnvironments: string,
): Promise<TierKey[]> {
  if (runs.length === 0) return [];
  // Each run's '' row first, then its environment's: the lock order every writer follows.
  const rows = runs.flatMap((run) => [
    { ...run, environment: allEnvironments },
    { ...run, environment: run.environment },
  ]);
  const later = sql`excluded.last_started_at >= t.last_started_at`;
  const toEnd = sql`extract(epoch from excluded.${sql.ref(tier.column)} + ${sql.raw(`interval '${tier.width}'`)}
    - excluded.first_minute)`;
  const { rows: added } = await sql<{ organizationId: string; monitorId: string; environment: string }>`
    ${insertTierRows(tier, rows)} ${addRunCounts('t')},
      first_minute = coalesce(t.first_minute, excluded.first_minute),
      up_seconds = case when t.last_started_at is null then excluded.up_seconds
        when ${later} then t.up_seconds + (excluded.last_success::int - coalesce(t.last_success::int, 0)) * ${toEnd}
        else t.up_seconds end,
      known_seconds = case when t.last_started_at is null then excluded.known_seconds
        when ${later} and t.last_success is null then t.known_seconds + ${toEnd}
        else t.known_seconds end,
      last_success = case when t.last_started_at is null or ${later} then excluded.last_success
        else t.last_success end,
      last_started_at = greatest(t.last_started_at, excluded.last_started_at)
    where t.last_started_at is null
      or excluded.first_minute >= date_bin('1 minute', t.last_started_at, timestamptz 'epoch')
    returning organization_id as "organizationId", monitor_id as "monitorId", environment`.execute(db);
  const keys = new Set(added.map((r) => `${r.organizationId}\n${r.monitorId}\n${r.environment}`));
  return rows
    .filter((row) => !keys.has(`${row.organizationId}\n${row.monitorId}\n${row.environment}`))
    .map(({ organizationId, monitorId, environment, at }) => ({
      organizationId,
      monitorId,
      environment,
      at,
    }));
}

/**
 * Adds runs' counts to rows of `tier` (each run to the one row of its `environment`) without touching their
 * uptime: for a late result whose row cannot be recomputed because its finer rows are past their retention.
 * The counts stay exact; the uptime misses the stretch the late result would have changed.
 */
export async function addRunCountsOnly(
  db: Executor,
  tier: RollupTier,
  rows: readonly TierIncrement[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`${insertTierRows(tier, rows)} ${addRunCounts('t')},
    first_minute = coalesce(t.first_minute, excluded.first_minute)`.execute(db);
}

/** An insert of one row per increment into `tier`, up to `on conflict (...) do update set`. */
function insertTierRows(tier: RollupTier, rows: readonly TierIncrement[]) {
  const column = sql.ref(tier.column);
  const width = sql.raw(`interval '${tier.width}'`);
  return sql`
    insert into ${sql.table(tier.table)} as t (organization_id, monitor_id, ${column}, environment,
      ${RUN_COUNT_COLUMNS}, first_minute, up_seconds, known_seconds, last_started_at, last_success)
    select o, m, a, e, ${RUN_COUNT_VALUES}, mi, case when s then extract(epoch from a + ${width} - mi) else 0 end,
      extract(epoch from a + ${width} - mi), st, s
    from unnest(${rows.map((r) => r.organizationId)}::text[], ${rows.map((r) => r.monitorId)}::text[],
      ${timestampArray(rows.map((r) => r.at))}, ${rows.map((r) => r.environment)}::text[], ${runCountArrays(rows)},
      ${timestampArray(rows.map((r) => r.minute))}, ${timestampArray(rows.map((r) => r.startedAt))})
      with ordinality as u(o, m, a, e, s, d, b, c, mi, st, n)
    order by n
    on conflict (organization_id, monitor_id, ${column}, environment) do update set`;
}
