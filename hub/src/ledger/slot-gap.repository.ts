import { sql } from 'kysely';
import { textArray, timestampArray } from '../db/array-params.js';
import type { Executor } from '../db/database.js';
import { foldHoldsSlot } from '../runs/run-fold.repository.js';
import type { SlotGap } from './slot-gap.js';

/**
 * Records `gaps` in one statement, each slot once: a slot that already has a gap, a run row (its unique key,
 * created_at being the slot's due time), a folded run (docs/adr/0061) or no monitor any more is left out. The
 * totals of the gaps actually inserted are added to `slot_gap_totals` in the same statement, so the counter never
 * counts a gap twice nor misses one. Resolves with the count inserted.
 *
 * The run is looked up by its whole unique key in a lateral subquery with LIMIT 1: always an index probe per
 * slot in the one day partition its due time falls in (pruned at execution), never a scan of a day of runs, however
 * many slots are given (the auditor passes tens of thousands).
 */
export async function recordGaps(db: Executor, gaps: readonly SlotGap[]): Promise<number> {
  if (gaps.length === 0) return 0;
  // Sorted by key: concurrent writers then take the unique index's locks in the same order (no deadlock).
  const sorted = [...gaps].sort(compareGaps);
  const text = (pick: (gap: SlotGap) => string) => textArray(sorted.map(pick));
  const { rows } = await sql<{ inserted: string }>`
    with given as (
      select distinct on (o, m, l, s) o, m, l, s, a, r
      from unnest(${text((g) => g.organizationId)}, ${text((g) => g.monitorId)}, ${text((g) => g.location)},
        ${text((g) => String(g.slotMs))}, ${timestampArray(sorted.map((g) => new Date(g.slotMs)))},
        ${text((g) => g.reason)}) as u(o, m, l, s, a, r)
      order by o, m, l, s
    ), unaccounted as (
      select given.* from given
      join monitors on monitors.organization_id = given.o and monitors.id = given.m
      left join lateral (
        select 1 as ran from runs
        where runs.organization_id = given.o and runs.monitor_id = given.m and runs.location = given.l
          and runs.schedule_slot = given.s and runs.created_at = given.a
        limit 1
      ) as run on true
      where run.ran is null and not ${foldHoldsSlot(sql`given.o`, sql`given.m`, sql`given.l`, sql`given.a`)}
    ), inserted as (
      insert into slot_gaps (organization_id, monitor_id, location, schedule_slot, slot_at, reason)
      select o, m, l, s, a, r from unaccounted order by o, m, l, s
      on conflict do nothing
      returning location, reason
    ), counted as (
      select location, reason, count(*) as n from inserted group by location, reason
    ), totalled as (
      insert into slot_gap_totals (location, reason, total)
      select location, reason, n from counted order by location, reason
      on conflict (location, reason) do update set total = slot_gap_totals.total + excluded.total
    )
    select coalesce(sum(n), 0) as inserted from counted`.execute(db);
  return Number(rows[0]?.inserted ?? 0);
}

function compareGaps(a: SlotGap, b: SlotGap): number {
  for (const key of ['organizationId', 'monitorId', 'location'] as const)
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  return String(a.slotMs) < String(b.slotMs) ? -1 : String(a.slotMs) > String(b.slotMs) ? 1 : 0;
}

/** Every gap ever recorded, per location and reason: the counter's values (gaps deleted since included). */
export async function readGapTotals(
  db: Executor,
): Promise<Array<{ location: string; reason: string; total: number }>> {
  const rows = await db.selectFrom('slot_gap_totals').select(['location', 'reason', 'total']).execute();
  return rows.map((row) => ({ ...row, total: Number(row.total) }));
}

/** Deletes up to `limit` gaps due before `before` (the runs' retention); resolves with the count deleted. */
export async function deleteGapsBefore(db: Executor, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ deleted: string }>`
    with doomed as (
      select organization_id, monitor_id, location, schedule_slot from slot_gaps where slot_at < ${before}
      limit ${limit}
    ), deleted as (
      delete from slot_gaps g using doomed d
      where (g.organization_id, g.monitor_id, g.location, g.schedule_slot)
        = (d.organization_id, d.monitor_id, d.location, d.schedule_slot)
      returning 1
    )
    select count(*) as deleted from deleted`.execute(db);
  return Number(rows[0]?.deleted ?? 0);
}

/** A slot of a monitor at a location, by its due time in epoch milliseconds. */
export interface SlotKey {
  organizationId: string;
  monitorId: string;
  location: string;
  slotMs: number;
}

/**
 * Whether each of `slots` has a run row, a folded run or a gap already, in their order. One statement; a run is
 * probed by its whole unique key, as in recordGaps.
 */
export async function accountedSlots(db: Executor, slots: readonly SlotKey[]): Promise<boolean[]> {
  if (slots.length === 0) return [];
  const text = (pick: (slot: SlotKey) => string) => textArray(slots.map(pick));
  const { rows } = await sql<{ i: string }>`
    select i
    from unnest(${text((k) => k.organizationId)}, ${text((k) => k.monitorId)}, ${text((k) => k.location)},
      ${text((k) => String(k.slotMs))}, ${timestampArray(slots.map((k) => new Date(k.slotMs)))})
      with ordinality as u(o, m, l, s, a, i)
    where exists (
        select 1 from runs
        where runs.organization_id = u.o and runs.monitor_id = u.m and runs.location = u.l
          and runs.schedule_slot = u.s and runs.created_at = u.a)
      or ${foldHoldsSlot(sql`u.o`, sql`u.m`, sql`u.l`, sql`u.a`)}
      or exists (
        select 1 from slot_gaps g
        where g.organization_id = u.o and g.monitor_id = u.m and g.location = u.l and g.schedule_slot = u.s)`.execute(
    db,
  );
  const accounted = slots.map(() => false);
  for (const row of rows) accounted[Number(row.i) - 1] = true;
  return accounted;
}
