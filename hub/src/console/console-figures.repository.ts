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

/**
 * Every monitor of the organization with its project, and its hour-tier run and failure counts (every environment)
 * from `since`: a monitor without runs has one row with a null hour.
 */
export async function listMonitorHours(
  db: Executor,
  organizationId: string,
  since: Date,
): Promise<Array<{ monitorId: string; project: string; hour: Date | null; runs: number; failures: number }>> {
  const rows = await db
    .selectFrom('monitors as m')
    .leftJoin('run_rollups_hour as h', (join) =>
      join
        .onRef('h.organization_id', '=', 'm.organization_id')
        .onRef('h.monitor_id', '=', 'm.id')
        .on('h.environment', '=', ALL_ENVIRONMENTS)
        .on('h.hour', '>=', since),
    )
    .select(['m.id', 'm.project', 'h.hour', 'h.run_count', 'h.failure_count'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.id')
    .orderBy('h.hour')
    .execute();
  return rows.map((row) => ({
    monitorId: row.id,
    project: row.project,
    hour: row.hour,
    runs: Number(row.run_count ?? 0),
    failures: Number(row.failure_count ?? 0),
  }));
}
