import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { ALL_ENVIRONMENTS } from '../metrics/hour-rollup.repository.js';
import { liveDayRows, liveHourRows } from '../metrics/live-rollups.repository.js';
import { KNOWN_SECONDS } from '../metrics/rollup-tier.repository.js';

export interface UptimeDayRow {
  monitorId: string;
  day: Date;
  uptimePercent: number | null;
  /** Seconds of the day (up to now) held by a result, not by a gap (docs/adr/0048-uptime-counts-known-time.md). */
  knownSeconds: number;
  runs: number;
  failures: number;
}

/**
 * Day-tier rows of `monitorIds` (every environment) from `since`. A day's uptime is the share of its known time
 * (from its first result to its end, or to `now` today, less what gaps held) it spent up, as the period uptime
 * of the metrics API weighs it; null when none of it is known.
 */
export async function listUptimeDays(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  since: Date,
  now: Date,
): Promise<UptimeDayRow[]> {
  if (monitorIds.length === 0) return [];
  const afterNow = sql`greatest(0, extract(epoch from day + interval '1 day' - ${now}::timestamptz))`;
  const days = liveDayRows({ organizationId, environment: ALL_ENVIRONMENTS, monitorIds, since });
  const rows = await db
    .selectFrom(days.as('d'))
    .select([
      'monitor_id',
      'day',
      'run_count',
      'failure_count',
      // The row counts its last result as holding to the day's end; today, the time after `now` is not yet known.
      sql<number | null>`case when first_minute is null then null else ${KNOWN_SECONDS('d', 'day')}
        - case when last_success is null then 0 else ${afterNow} end end`.as('known'),
      sql<number>`up_seconds - case when last_success then ${afterNow} else 0 end`.as('up'),
    ])
    .where('organization_id', '=', organizationId)
    .where('environment', '=', ALL_ENVIRONMENTS)
    .where('monitor_id', 'in', monitorIds)
    .where('day', '>=', since)
    .orderBy('day')
    .execute();
  return rows.map((row) => ({
    monitorId: row.monitor_id,
    day: row.day,
    uptimePercent:
      row.known === null || Number(row.known) <= 0
        ? null
        : Math.round(Math.min(100, (100 * Number(row.up)) / Number(row.known)) * 100) / 100,
    knownSeconds: row.known === null ? 0 : Math.max(0, Math.round(Number(row.known))),
    runs: Number(row.run_count),
    failures: Number(row.failure_count),
  }));
}

/** Every monitor of the organization with its project, by id. */
export async function listMonitorProjects(
  db: Executor,
  organizationId: string,
): Promise<Array<{ monitorId: string; project: string }>> {
  const rows = await db
    .selectFrom('monitors')
    .select(['id', 'project'])
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ monitorId: row.id, project: row.project }));
}

/**
 * The organization's hour-tier run and failure counts (every environment) from `since`, oldest first. Read apart
 * from the monitors, not joined to them: right after a bulk import the planner's statistics still count a handful of
 * monitors, and the join it planned compared every monitor with every hour row (0.1 s at a thousand monitors,
 * growing with the square).
 */
export async function listHourCounts(
  db: Executor,
  organizationId: string,
  since: Date,
): Promise<Array<{ monitorId: string; hour: Date; runs: number; failures: number }>> {
  const hours = liveHourRows({ organizationId, environment: ALL_ENVIRONMENTS, since });
  const rows = await db
    .selectFrom(hours.as('h'))
    .select(['monitor_id', 'hour', 'run_count', 'failure_count'])
    .where('organization_id', '=', organizationId)
    .where('environment', '=', ALL_ENVIRONMENTS)
    .where('hour', '>=', since)
    .orderBy('hour')
    .execute();
  return rows.map((row) => ({
    monitorId: row.monitor_id,
    hour: row.hour,
    runs: Number(row.run_count),
    failures: Number(row.failure_count),
  }));
}

/**
 * The hours with a failure of `monitorIds` (every environment, hour tier) from `since`, by monitor and hour, with
 * the result the hour ended on: what a status page's incident history is made of.
 */
export async function listFailingHours(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  since: Date,
): Promise<Array<{ monitorId: string; hour: Date; failures: number; endedFailing: boolean }>> {
  if (monitorIds.length === 0) return [];
  const hours = liveHourRows({ organizationId, environment: ALL_ENVIRONMENTS, monitorIds, since });
  const rows = await db
    .selectFrom(hours.as('h'))
    .select(['monitor_id', 'hour', 'failure_count', 'last_success'])
    .where('organization_id', '=', organizationId)
    .where('environment', '=', ALL_ENVIRONMENTS)
    .where('monitor_id', 'in', monitorIds)
    .where('hour', '>=', since)
    .where('failure_count', '>', 0)
    .orderBy('monitor_id')
    .orderBy('hour')
    .execute();
  return rows.map((row) => ({
    monitorId: row.monitor_id,
    hour: row.hour,
    failures: Number(row.failure_count),
    endedFailing: row.last_success === false,
  }));
}
