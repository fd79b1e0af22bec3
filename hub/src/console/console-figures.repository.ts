import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { ALL_ENVIRONMENTS } from '../metrics/hour-rollup.repository.js';

export interface UptimeDayRow {
  monitorId: string;
  day: Date;
  uptimePercent: number | null;
  runs: number;
  failures: number;
}

/**
 * Day-tier rows of `monitorIds` (every environment) from `since`. A day's uptime is the time it spent up from its
 * first result to its end (or to `now`, today), as the period uptime of the metrics API weighs it.
 */
export async function listUptimeDays(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  since: Date,
  now: Date,
): Promise<UptimeDayRow[]> {
  if (monitorIds.length === 0) return [];
  const rows = await db
    .selectFrom('run_rollups_day')
    .select((eb) => [
      'monitor_id',
      'day',
      'run_count',
      'failure_count',
      eb
        .case()
        .when('first_minute', 'is', null)
        .then(sql<number | null>`null`)
        .else(
          sql<number>`least(100, 100 * up_seconds / greatest(1, extract(epoch from
            least(day + interval '1 day', ${now}::timestamptz) - first_minute)))`,
        )
        .end()
        .as('uptime'),
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
    uptimePercent: row.uptime === null ? null : Math.round(Number(row.uptime) * 100) / 100,
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
  const rows = await db
    .selectFrom('run_rollups_hour')
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
  const rows = await db
    .selectFrom('run_rollups_hour')
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
