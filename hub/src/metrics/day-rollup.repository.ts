import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { ALL_ENVIRONMENTS } from './hour-rollup.repository.js';
import { DAY_MS, dayOf } from './time-buckets.js';
import { DAY_TIER, lockTierRows, refreshTier } from './tier-refresh.js';

/** Hour rollup rows matching `hourFilter` (a condition on `h`) as tier pieces. */
const hourPieces = (hourFilter: RawBuilder<unknown>) => sql`
  select h.organization_id, h.monitor_id, h.environment, h.first_minute as first_at,
    h.hour + interval '1 hour' as internal_end, h.up_seconds as internal_up, h.run_count, h.success_count,
    h.failure_count, h.duration_count, h.duration_sum_ms, h.duration_min_ms, h.duration_max_ms, h.histogram,
    h.error_classes, h.last_started_at, h.last_success
  from run_rollups_hour h where h.first_minute is not null and ${hourFilter}`;

/**
 * Recomputes the daily rows of every (monitor, environment, day) that has hour rows matching `hourFilter` (a
 * condition on `h`, a `run_rollups_hour` row; it must select whole days): the sums of its hours, and its uptime
 * summary built from theirs the way an hour's is built from its minutes.
 */
export async function refreshDayRollups(db: Executor, hourFilter: RawBuilder<unknown>): Promise<void> {
  await refreshTier(db, DAY_TIER, hourPieces(hourFilter));
}

/** Brings one monitor's day up to date after one of its hours changed; locks as `refreshMonitorHour` does. */
export async function refreshMonitorDay(
  db: Executor,
  key: { organizationId: string; monitorId: string; environment: string; minute: Date },
): Promise<void> {
  const day = dayOf(key.minute);
  await lockTierRows(db, DAY_TIER, { ...key, at: day, allEnvironments: ALL_ENVIRONMENTS });
  await refreshDayRollups(
    db,
    // Only the two rows this run changed (and locked), from the hours of the same two environments.
    sql`h.organization_id = ${key.organizationId} and h.monitor_id = ${key.monitorId}
      and h.hour >= ${day} and h.hour < ${new Date(day.getTime() + DAY_MS)}
      and h.environment in (${ALL_ENVIRONMENTS}, ${key.environment})`,
  );
}
