import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { refreshDayRollups } from './day-rollup.repository.js';
import { refreshHourRollups } from './hour-rollup.repository.js';

/**
 * The advisory lock between the writers of rollups and the pass that sums hours from minutes
 * (docs/adr/0062-hour-and-day-rollups-from-minutes.md): writers hold it shared for their transaction, the pass
 * exclusive for its own. Advisory locks write no WAL.
 */
const HOURS_SUMMED_LOCK = 0x6d6b0062;

const HOUR_MS = 3_600_000;

/**
 * Takes the rollup writers' share of the lock for the rest of `tx`, then reads how far the hour rows are summed:
 * a result in an hour before it must add itself to its hour row (and to its day row when that day is before the
 * watermark's day); a result from then on only to its minute, which the next pass sums. Holding the lock, the
 * watermark cannot move until `tx` ends, so no pass can sum an hour without this transaction's minutes.
 */
export async function enterRollupWrite(tx: Executor): Promise<Date> {
  await sql`select pg_advisory_xact_lock_shared(${HOURS_SUMMED_LOCK})`.execute(tx);
  return readHoursSummedUntil(tx);
}

/** Every hour before this is in `run_rollups_hour`, every whole day before it in `run_rollups_day`. */
export async function readHoursSummedUntil(db: Executor): Promise<Date> {
  const row = await db
    .selectFrom('rollup_fold_watermark')
    .select('hours_summed_until')
    .executeTakeFirstOrThrow();
  return row.hours_summed_until;
}

/** SQL for the watermark, for a reader that must see it in the same snapshot as the rows it reads. */
export const HOURS_SUMMED_UNTIL = sql`(select hours_summed_until from rollup_fold_watermark)`;

/**
 * One pass: sums up to `maxHours` whole hours after the watermark from their minute rows, the days those hours
 * complete from their hour rows, and moves the watermark past them, in one transaction under the exclusive lock
 * (so results in flight are either in the minutes read or see the new watermark and add themselves to the hour
 * rows). Only hours that ended `graceMs` before `now` are summed, so results of an hour that just ended still
 * land in their minutes. The rows are recomputed, not added to: a pass that dies is rolled back whole, and a pass
 * run again gives the same rows. Resolves with the count of hours summed.
 */
export async function sumHoursFromMinutes(
  db: Db,
  { now, graceMs, maxHours }: { now: Date; graceMs: number; maxHours: number },
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${HOURS_SUMMED_LOCK})`.execute(tx);
    const from = await readHoursSummedUntil(tx);
    const ended = Math.floor((now.getTime() - graceMs) / HOUR_MS) * HOUR_MS;
    const until = new Date(Math.min(ended, from.getTime() + maxHours * HOUR_MS));
    if (until <= from) return 0;
    await refreshHourRollups(tx, sql`r.minute >= ${from} and r.minute < ${until}`);
    const firstDay = sql`date_bin('1 day', ${from}::timestamptz, timestamptz 'epoch')`;
    const lastDay = sql`date_bin('1 day', ${until}::timestamptz, timestamptz 'epoch')`;
    // The days this pass completes: from the watermark's day to the day the new watermark falls in.
    await refreshDayRollups(tx, sql`h.hour >= ${firstDay} and h.hour < ${lastDay}`);
    await tx.updateTable('rollup_fold_watermark').set({ hours_summed_until: until }).execute();
    return (until.getTime() - from.getTime()) / HOUR_MS;
  });
}
