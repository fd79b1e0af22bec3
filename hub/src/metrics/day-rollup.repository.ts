import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { ALL_ENVIRONMENTS } from './hour-rollup.repository.js';
import { dayOf } from './time-buckets.js';
import {
  addRunsToTier,
  DAY_TIER,
  KNOWN_SECONDS,
  refreshTier,
  tierKeyRows,
  type TierIncrement,
} from './rollup-tier.repository.js';

/**
 * Hour rollup rows matching `hourFilter` (a condition on `h`) as tier pieces, from `hours` (the table, or the
 * hours as readers see them: `liveHourRows`).
 */
export const hourPieces = (
  hourFilter: RawBuilder<unknown>,
  hours: RawBuilder<unknown> = sql`run_rollups_hour`,
) => sql`
  select h.organization_id, h.monitor_id, h.environment, h.first_minute as first_at,
    h.hour + interval '1 hour' as internal_end, h.up_seconds as internal_up,
    ${KNOWN_SECONDS('h', 'hour')} as internal_known, h.run_count, h.success_count,
    h.failure_count, h.duration_count, h.duration_sum_ms, h.duration_min_ms, h.duration_max_ms, h.histogram,
    h.error_classes, h.last_started_at, h.last_success
  from ${hours} h where h.first_minute is not null and ${hourFilter}`;

/**
 * Recomputes the daily rows of every (monitor, environment, day) that has hour rows matching `hourFilter` (a
 * condition on `h`, a `run_rollups_hour` row; it must select whole days): the sums of its hours, and its uptime
 * summary built from theirs the way an hour's is built from its minutes.
 */
export async function refreshDayRollups(db: Executor, hourFilter: RawBuilder<unknown>): Promise<void> {
  await refreshTier(db, DAY_TIER, hourPieces(hourFilter));
}

/** Adds runs to their day rows as `addRunsToHours` adds them to hours; a late day is recomputed from its hours. */
export async function addRunsToDays(
  db: Executor,
  runs: ReadonlyArray<Omit<TierIncrement, 'at'>>,
): Promise<void> {
  const late = await addRunsToTier(
    db,
    DAY_TIER,
    runs.map((run) => ({ ...run, at: dayOf(run.minute) })),
    ALL_ENVIRONMENTS,
  );
  if (late.length === 0) return;
  // Only the rows each late run left as they were (and locked), from the hours of the same environment.
  await refreshDayRollups(
    db,
    sql`exists (select 1 from ${tierKeyRows(late)} where h.organization_id = k.organization_id
      and h.monitor_id = k.monitor_id and h.hour >= k.at and h.hour < k.at + interval '1 day'
      and h.environment = k.environment)`,
  );
}
