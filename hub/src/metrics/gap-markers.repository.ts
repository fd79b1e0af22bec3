import { sql, type RawBuilder } from 'kysely';
import { textArray, timestampArray } from '../db/array-params.js';
import type { Db, Executor } from '../db/database.js';
import { refreshDayRollups } from './day-rollup.repository.js';
import { ALL_ENVIRONMENTS, hoursMissingMinutes, refreshHourRollups } from './hour-rollup.repository.js';
import { enterRollupWrite } from './rollup-fold.repository.js';
import { RUN_COUNT_COLUMNS, tierKeyRows, type TierKey } from './rollup-tier.repository.js';
import { dayOf, hourOf } from './time-buckets.js';

/** A recorded gap not yet in the rollups, with its monitor's environment (the environment its runs carry). */
interface ClaimedGap {
  organizationId: string;
  monitorId: string;
  location: string;
  scheduleSlot: string;
  slotAt: Date;
  environment: string;
}

/**
 * Turns up to `limit` recorded gaps not yet folded into markers in the minute rollups, and recomputes the hour and
 * day rows they fall in, in one transaction (docs/adr/0048-uptime-counts-known-time.md): from a gap on, a monitor
 * has no data until its next result, so the tiers keep that time out of both its uptime and its known seconds
 * after the runs, the gaps and the minutes are gone. Resolves with the count folded.
 *
 * The hour and day rows are locked (made if missing) before the minutes are read, so a run recorded meanwhile
 * either is in the minutes read or waits and then adds itself to the recomputed row. An hour whose minutes are no
 * longer all kept (a gap folded past MINUTE_ROLLUP_RETENTION_DAYS) is left as it was: recomputing it would lose runs.
 */
export async function foldGapsIntoRollups(db: Db, limit: number): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const { rows: gaps } = await sql<ClaimedGap>`
      select g.organization_id as "organizationId", g.monitor_id as "monitorId", g.location,
        g.schedule_slot as "scheduleSlot", g.slot_at as "slotAt", m.environment
      from slot_gaps g join monitors m on m.organization_id = g.organization_id and m.id = g.monitor_id
      where g.folded_at is null order by g.recorded_at limit ${limit}
      for update of g skip locked`.execute(tx);
    if (gaps.length === 0) return 0;
    // Hours from the watermark on are summed from these markers by the next pass (ADR 0062): only the rows already
    // summed are recomputed here, so each gap counts once, in the row of its own hour and day.
    const summedUntil = await enterRollupWrite(tx);
    const hours = tierKeysOf(gaps, hourOf).filter((k) => k.at < summedUntil);
    const days = tierKeysOf(gaps, dayOf).filter((k) => k.at < dayOf(summedUntil));
    // Minute, hour, then day rows: the order the run writers lock them in, so neither waits for the other in a cycle.
    await addGapMarkers(tx, gaps);
    await lockTierRows(tx, 'run_rollups_hour', 'hour', hours);
    await lockTierRows(tx, 'run_rollups_day', 'day', days);
    const keyOf = (k: TierKey) =>
      JSON.stringify([k.organizationId, k.monitorId, k.at.getTime(), k.environment]);
    const gone = new Set((await hoursMissingMinutes(tx, hours, 0)).map(keyOf));
    const whole = hours.filter((k) => !gone.has(keyOf(k)));
    if (whole.length > 0)
      await refreshHourRollups(
        tx,
        sql`exists (select 1 from ${tierKeyRows(whole)} where r.organization_id = k.organization_id
          and r.monitor_id = k.monitor_id and r.minute >= k.at and r.minute < k.at + interval '1 hour'
          and e.environment = k.environment)`,
      );
    await refreshDayRollups(
      tx,
      sql`exists (select 1 from ${tierKeyRows(days)} where h.organization_id = k.organization_id
        and h.monitor_id = k.monitor_id and h.hour >= k.at and h.hour < k.at + interval '1 day'
        and h.environment = k.environment)`,
    );
    await sql`update slot_gaps g set folded_at = now()
      from unnest(${textArray(gaps.map((g) => g.organizationId))}, ${textArray(gaps.map((g) => g.monitorId))},
        ${textArray(gaps.map((g) => g.location))}, ${textArray(gaps.map((g) => g.scheduleSlot))}) as u(o, m, l, s)
      where (g.organization_id, g.monitor_id, g.location, g.schedule_slot) = (u.o, u.m, u.l, u.s)`.execute(
      tx,
    );
    return gaps.length;
  });
}

/** The tier rows the gaps fall in, each in its environment and in every environment. */
function tierKeysOf(gaps: readonly ClaimedGap[], bucketOf: (at: Date) => Date): TierKey[] {
  const keys = new Map<string, TierKey>();
  for (const gap of gaps)
    for (const environment of [ALL_ENVIRONMENTS, gap.environment]) {
      const at = bucketOf(gap.slotAt);
      const key = { organizationId: gap.organizationId, monitorId: gap.monitorId, environment, at };
      keys.set(JSON.stringify([gap.organizationId, gap.monitorId, at.getTime(), environment]), key);
    }
  return [...keys.values()];
}

/**
 * Makes the rows that do not exist yet and locks all of them (a no-op update locks the row it meets), in the order
 * the run writers lock them: organization, then monitor, then the '' row before its environment's.
 */
async function lockTierRows(
  tx: Executor,
  table: 'run_rollups_hour' | 'run_rollups_day',
  column: 'hour' | 'day',
  keys: readonly TierKey[],
): Promise<void> {
  await sql`insert into ${sql.table(table)} as t (organization_id, monitor_id, environment, ${sql.ref(column)})
    select k.organization_id, k.monitor_id, k.environment, k.at from ${tierKeyRows(keys)}
    order by k.organization_id, k.monitor_id, k.at, k.environment
    on conflict (organization_id, monitor_id, ${sql.ref(column)}, environment)
    do update set run_count = t.run_count`.execute(tx);
}

/**
 * One marker per (monitor, minute, location, environment): a minute row without runs whose latest event is the
 * latest gap in it. In a minute that also has runs, the later of its latest run and its latest gap holds.
 */
async function addGapMarkers(tx: Executor, gaps: readonly ClaimedGap[]): Promise<void> {
  const column = (pick: (gap: ClaimedGap) => string): RawBuilder<unknown> => textArray(gaps.map(pick));
  await sql`
    insert into run_rollups_minute as r (organization_id, monitor_id, minute, location, environment,
      ${RUN_COUNT_COLUMNS}, last_started_at, last_success)
    select o, m, date_bin('1 minute', a, timestamptz 'epoch'), l, e, 0, 0, 0, 0, 0, null, null, '{}'::jsonb,
      '{}'::jsonb, max(a), null
    from unnest(${column((g) => g.organizationId)}, ${column((g) => g.monitorId)}, ${column((g) => g.location)},
      ${column((g) => g.environment)}, ${timestampArray(gaps.map((g) => g.slotAt))}) as u(o, m, l, e, a)
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (organization_id, monitor_id, minute, location, environment) do update set
      last_success = case when excluded.last_started_at >= r.last_started_at then null else r.last_success end,
      last_started_at = greatest(r.last_started_at, excluded.last_started_at)`.execute(tx);
}
