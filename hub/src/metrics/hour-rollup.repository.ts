import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { hourOf } from './time-buckets.js';
import { HOUR_TIER, lockTierRows, refreshTier, tierKeyRows } from './tier-refresh.js';

/** The hourly tier's "every environment" rows carry this environment (no real environment is empty). */
export const ALL_ENVIRONMENTS = '';

/**
 * Minute rollup rows matching `minuteFilter` (a condition on `r` and on `e.environment`, the piece's
 * environment) as tier pieces, each in its own environment and in every environment.
 */
const minutePieces = (minuteFilter: RawBuilder<unknown>) => sql`
  select r.organization_id, r.monitor_id, e.environment, r.minute as first_at, r.minute as internal_end,
    0::float8 as internal_up, r.run_count, r.success_count, r.failure_count, r.duration_count, r.duration_sum_ms,
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
 * Brings the hours of runs just added to their minutes up to date, one row per monitor (distinct monitors, in
 * lock order). The hour rows are locked first, so a concurrent writer of the same hour waits for this
 * transaction and then recomputes from a snapshot that includes its minute: no update is lost.
 */
export async function refreshMonitorHours(
  db: Executor,
  runs: ReadonlyArray<{ organizationId: string; monitorId: string; environment: string; minute: Date }>,
): Promise<void> {
  if (runs.length === 0) return;
  const keys = runs.map((run) => ({ ...run, at: hourOf(run.minute) }));
  await lockTierRows(db, HOUR_TIER, keys, ALL_ENVIRONMENTS);
  // Only the two rows each run changed (and locked); other environments' rows of the hour stay as they are.
  await refreshTier(
    db,
    HOUR_TIER,
    minutePieces(
      sql`exists (select 1 from ${tierKeyRows(keys)} where r.organization_id = k.organization_id
        and r.monitor_id = k.monitor_id and r.minute >= k.at and r.minute < k.at + interval '1 hour'
        and e.environment in (${ALL_ENVIRONMENTS}, k.environment))`,
    ),
  );
}
