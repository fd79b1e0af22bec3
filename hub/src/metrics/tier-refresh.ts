import { sql, type RawBuilder } from 'kysely';
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
 * Recomputes the rows of `tier` that `pieces` fall into, from those pieces alone. A piece is a finer rollup
 * row (a minute, or an hour) in one shape: `first_at` (its first result), `internal_end` and `internal_up` (the
 * seconds it was up from `first_at` to `internal_end`, which a minute does not have), its sums and its last
 * result. The tier row sums them, and its uptime adds to their own the time from each piece's end to the next
 * piece's first result (or the row's end) while that piece's last result was a success. Pieces must be whole:
 * every piece of each (monitor, environment, row) touched, or the recomputed row covers only some of them.
 */
export async function refreshTier(
  db: Executor,
  tier: RollupTier,
  pieces: RawBuilder<unknown>,
): Promise<void> {
  const width = sql.raw(`interval '${tier.width}'`);
  const key = sql`organization_id, monitor_id, bucket, environment`;
  await sql`
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
        max(last_started_at) as last_started_at, bool_or(last_success) filter (where from_last = 1) as last_success
      from spans group by 1, 2, 3, 4
    )
    insert into ${sql.table(tier.table)} (organization_id, monitor_id, ${sql.ref(tier.column)}, environment,
      run_count, success_count, failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms,
      histogram, error_classes, first_minute, up_seconds, last_started_at, last_success)
    select t.organization_id, t.monitor_id, t.bucket, t.environment, t.run_count, t.success_count, t.failure_count,
      t.duration_count, t.duration_sum_ms, t.duration_min_ms, t.duration_max_ms,
      coalesce(hi.counts, '{}'::jsonb), coalesce(er.counts, '{}'::jsonb), t.first_minute, t.up_seconds,
      t.last_started_at, t.last_success
    from totals t
    left join histograms hi using (organization_id, monitor_id, bucket, environment)
    left join errors er using (organization_id, monitor_id, bucket, environment)
    on conflict (organization_id, monitor_id, ${sql.ref(tier.column)}, environment) do update set
      run_count = excluded.run_count, success_count = excluded.success_count,
      failure_count = excluded.failure_count, duration_count = excluded.duration_count,
      duration_sum_ms = excluded.duration_sum_ms, duration_min_ms = excluded.duration_min_ms,
      duration_max_ms = excluded.duration_max_ms, histogram = excluded.histogram,
      error_classes = excluded.error_classes, first_minute = excluded.first_minute,
      up_seconds = excluded.up_seconds, last_started_at = excluded.last_started_at,
      last_success = excluded.last_success`.execute(db);
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
    ${keys.map((k) => k.environment)}::text[], ${keys.map((k) => k.at.toISOString())}::timestamptz[])
    as k(organization_id, monitor_id, environment, at)`;
}

/**
 * Takes the rows of `tier` of `keys`, each for every environment and for its own, creating them if missing, in
 * the order given (the same order in every writer, organization then monitor, so writers of one monitor queue
 * instead of deadlocking). A concurrent writer of the same row then waits for this transaction and recomputes
 * from a snapshot that includes its work.
 */
export async function lockTierRows(
  db: Executor,
  tier: RollupTier,
  keys: readonly TierKey[],
  allEnvironments: string,
): Promise<void> {
  if (keys.length === 0) return;
  const rows = keys.flatMap((key) => [
    sql`(${key.organizationId}, ${key.monitorId}, ${key.at}, ${allEnvironments})`,
    sql`(${key.organizationId}, ${key.monitorId}, ${key.at}, ${key.environment})`,
  ]);
  await sql`
    insert into ${sql.table(tier.table)} as row (organization_id, monitor_id, ${sql.ref(tier.column)}, environment)
    values ${sql.join(rows)}
    on conflict (organization_id, monitor_id, ${sql.ref(tier.column)}, environment)
    do update set run_count = row.run_count`.execute(db);
}
