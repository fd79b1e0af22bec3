import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

/** What an organization's monitors use of the quotas that count what it owns (quota-usage.ts). */
export interface StoredQuotaUsage {
  monitors: number;
  /** Scheduled runs a day of all its monitors: what `runsKept` counts, per day kept. */
  runsPerDay: number;
  /** The shortest interval any of its monitors runs at, in seconds; 0 with no monitor. */
  shortestIntervalSeconds: number;
  /** The most locations one of its monitors runs in; 0 with no monitor. */
  mostLocations: number;
}

// A monitor's runs a day, computed here only (the write checks the sum after writing, in its transaction): one run
// per interval per location, the interval rounded up to whole runs; no `locations` is the one default location.
const intervalSeconds = sql<string>`((definition->'frequency'->>'every')::numeric * case definition->'frequency'->>'unit' when 'MINUTE' then 60 when 'HOUR' then 3600 else 86400 end)`;
const locationCount = sql<string>`coalesce(jsonb_array_length(definition->'locations'), 1)`;
const runsPerDay = sql<string>`ceil(86400 / ${intervalSeconds}) * ${locationCount}`;

function usageQuery(db: Executor) {
  return db
    .selectFrom('monitors')
    .select([
      (eb) => eb.fn.countAll<string>().as('monitors'),
      sql<string | null>`sum(${runsPerDay})`.as('runs_per_day'),
      sql<string | null>`min(${intervalSeconds})`.as('shortest_interval'),
      sql<string | null>`max(${locationCount})`.as('most_locations'),
    ]);
}

function toUsage(row: {
  monitors: string;
  runs_per_day: string | null;
  shortest_interval: string | null;
  most_locations: string | null;
}): StoredQuotaUsage {
  return {
    monitors: Number(row.monitors),
    runsPerDay: Number(row.runs_per_day ?? 0),
    shortestIntervalSeconds: Number(row.shortest_interval ?? 0),
    mostLocations: Number(row.most_locations ?? 0),
  };
}

export async function quotaUsageOf(db: Executor, organizationId: string): Promise<StoredQuotaUsage> {
  return toUsage(
    await usageQuery(db).where('organization_id', '=', organizationId).executeTakeFirstOrThrow(),
  );
}

/** Every organization that owns monitors, with its usage: the usage gauges. */
export async function quotaUsageByOrganization(
  db: Executor,
): Promise<Array<StoredQuotaUsage & { organizationId: string }>> {
  const rows = await usageQuery(db)
    .select('organization_id')
    .groupBy('organization_id')
    .orderBy('organization_id')
    .execute();
  return rows.map((row) => ({ organizationId: row.organization_id, ...toUsage(row) }));
}
