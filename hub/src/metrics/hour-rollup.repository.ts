import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { hourOf } from './time-buckets.js';
import {
  addRunCountsOnly,
  addRunsToTier,
  HOUR_TIER,
  refreshTier,
  tierKeyRows,
  type TierIncrement,
  type TierKey,
} from './rollup-tier.repository.js';

/** The hourly tier's "every environment" rows carry this environment (no real environment is empty). */
export const ALL_ENVIRONMENTS = '';

/**
 * Minute rollup rows matching `minuteFilter` (a condition on `r` and on `e.environment`, the piece's
 * environment) as tier pieces, each in its own environment and in every environment.
 */
export const minutePieces = (minuteFilter: RawBuilder<unknown>) => sql`
  select r.organization_id, r.monitor_id, e.environment, r.minute as first_at, r.minute as internal_end,
    0::float8 as internal_up, 0::float8 as internal_known, r.run_count, r.success_count, r.failure_count, r.duration_count, r.duration_sum_ms,
    r.duration_min_ms, r.duration_max_ms, r.histogram, r.error_classes, r.last_started_at, r.last_success
  from run_rollups_minute r cross join lateral (values (r.environment), (${ALL_ENVIRONMENTS})) e(environment)
  where ${minuteFilter}`;

/**
 * Recomputes the hourly rows of every (monitor, hour) that has minute rows matching `minuteFilter` (a condition
 * on `r`, a `run_rollups_minute` row; it must select whole hours), once per environment and once for every
 * environment together. Each hour row is the sum of its minute rows plus its uptime summary: the first minute
 * with a result, the seconds from then to the end of the hour during which the latest result was a success, and
 * the hour's last result.
 */
export async function refreshHourRollups(db: Executor, minuteFilter: RawBuilder<unknown>): Promise<void> {
  await refreshTier(db, HOUR_TIER, minutePieces(minuteFilter));
}

/**
 * Adds runs of distinct monitors (in lock order) to their hour rows, each to its environment's and to every
 * environment's (`addRunsToTier`). An hour row that has a later result than the run is recomputed from its
 * minutes, which already hold the run: its row is locked by then, so a concurrent writer of the same hour waits
 * for this transaction and then adds to what it recomputed. When that hour's minutes are no longer all kept
 * (past MINUTE_ROLLUP_RETENTION_DAYS: a result recorded days late), the run's counts are added to the row
 * instead, its uptime left as it was (docs/adr/0024-minute-rollup-retention.md).
 */
export async function addRunsToHours(
  db: Executor,
  runs: ReadonlyArray<Omit<TierIncrement, 'at'>>,
): Promise<void> {
  const increments = runs.map((run) => ({ ...run, at: hourOf(run.minute) }));
  const late = await addRunsToTier(db, HOUR_TIER, increments, ALL_ENVIRONMENTS);
  if (late.length === 0) return;
  const keyOf = (k: { organizationId: string; monitorId: string; environment: string }) =>
    `${k.organizationId}\n${k.monitorId}\n${k.environment}`;
  const gone = new Set((await hoursMissingMinutes(db, late, 1)).map(keyOf));
  const whole = late.filter((k) => !gone.has(keyOf(k)));
  if (whole.length > 0)
    // Only the rows each late run left as they were (and locked).
    await refreshTier(
      db,
      HOUR_TIER,
      minutePieces(
        sql`exists (select 1 from ${tierKeyRows(whole)} where r.organization_id = k.organization_id
          and r.monitor_id = k.monitor_id and r.minute >= k.at and r.minute < k.at + interval '1 hour'
          and e.environment = k.environment)`,
      ),
    );
  if (gone.size === 0) return;
  const runOf = new Map(increments.map((run) => [`${run.organizationId}\n${run.monitorId}`, run]));
  await addRunCountsOnly(
    db,
    HOUR_TIER,
    late
      .filter((k) => gone.has(keyOf(k)))
      .map((k) => ({ ...runOf.get(`${k.organizationId}\n${k.monitorId}`)!, environment: k.environment })),
  );
}

/**
 * Of hour rows, those whose minutes no longer add up to the row and `pending` runs not yet in it (a late run
 * that left the row as it was: 1): some of that hour's minute rows are past their retention, so recomputing the
 * row from them would lose runs.
 */
export async function hoursMissingMinutes(
  db: Executor,
  left: readonly TierKey[],
  pending: number,
): Promise<TierKey[]> {
  const { rows } = await sql<TierKey>`
    select k.organization_id as "organizationId", k.monitor_id as "monitorId", k.environment, k.at
    from ${tierKeyRows(left)}
    join run_rollups_hour h on h.organization_id = k.organization_id and h.monitor_id = k.monitor_id
      and h.hour = k.at and h.environment = k.environment
    where h.run_count + ${pending} > (select coalesce(sum(r.run_count), 0) from run_rollups_minute r
      where r.organization_id = k.organization_id and r.monitor_id = k.monitor_id and r.minute >= k.at
        and r.minute < k.at + interval '1 hour'
        and (k.environment = ${ALL_ENVIRONMENTS} or r.environment = k.environment))`.execute(db);
  return rows;
}
