import { sql } from 'kysely';
import type { Db } from '../db/database.js';

// `runs` is partitioned by day of `created_at` (docs/adr/0021-bounded-run-storage.md). Each day has a partition
// named runs_pYYYYMMDD, made a week ahead; rows of a day without one wait in runs_default until it is made.

const DAY_MS = 86_400_000;
const PARTITION_NAME = /^runs_p(\d{4})(\d{2})(\d{2})$/;

/** How far ahead day partitions are made: a week of maintenance passes may fail before a write lands in default. */
export const PARTITION_DAYS_AHEAD = 7;

/** The run partitions by day, and whether the default partition exists. */
export interface RunPartitions {
  days: Date[];
  hasDefault: boolean;
}

export const partitionNameOf = (day: Date): string =>
  `runs_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

const startOfDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

export async function listRunPartitions(db: Db): Promise<RunPartitions> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'runs'::regclass`.execute(db);
  const days: Date[] = [];
  for (const { name } of rows) {
    const match = PARTITION_NAME.exec(name);
    if (match !== null) days.push(new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`));
  }
  days.sort((a, b) => a.getTime() - b.getTime());
  return { days, hasDefault: rows.some(({ name }) => name === 'runs_default') };
}

const isAlreadyMade = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === '42P07';

/**
 * Makes the partition of `day`. Rows of that day already waiting in runs_default move into it in the same
 * transaction (attaching a partition whose rows are still in default is refused). Another process making the same
 * partition at the same moment is not an error.
 */
async function makeDayPartition(db: Db, day: Date): Promise<void> {
  const name = partitionNameOf(day);
  const from = sql.lit(day.toISOString());
  const to = sql.lit(new Date(day.getTime() + DAY_MS).toISOString());
  try {
    await db.transaction().execute(async (tx) => {
      await sql`set local lock_timeout = '5s'`.execute(tx);
      await sql`create table ${sql.table(name)} (like runs including defaults including constraints)`.execute(
        tx,
      );
      await sql`with moved as (
          delete from runs_default where created_at >= ${from} and created_at < ${to} returning *)
        insert into ${sql.table(name)} select * from moved`.execute(tx);
      await sql`alter table runs attach partition ${sql.table(name)} for values from (${from}) to (${to})`.execute(
        tx,
      );
    });
  } catch (error) {
    if (!isAlreadyMade(error)) throw error;
  }
}

/** Makes the day partitions from `now`'s day to PARTITION_DAYS_AHEAD days later that do not exist yet. */
export async function ensureRunPartitions(db: Db, now: Date): Promise<Date[]> {
  const existing = new Set((await listRunPartitions(db)).days.map((day) => day.getTime()));
  const made: Date[] = [];
  const today = startOfDay(now).getTime();
  for (let day = today; day <= today + PARTITION_DAYS_AHEAD * DAY_MS; day += DAY_MS) {
    if (existing.has(day)) continue;
    await makeDayPartition(db, new Date(day));
    made.push(new Date(day));
  }
  return made;
}

/**
 * Drops the day partitions that end at or before `before`: retention removes a day at once, without a row
 * delete, its WAL or its vacuum. A day that straddles `before` stays until it has wholly passed.
 */
export async function dropRunPartitionsBefore(db: Db, before: Date): Promise<Date[]> {
  const dropped: Date[] = [];
  for (const day of (await listRunPartitions(db)).days) {
    if (day.getTime() + DAY_MS > before.getTime()) continue;
    await db.transaction().execute(async (tx) => {
      await sql`set local lock_timeout = '5s'`.execute(tx);
      await sql`drop table if exists ${sql.table(partitionNameOf(day))}`.execute(tx);
    });
    dropped.push(day);
  }
  return dropped;
}
