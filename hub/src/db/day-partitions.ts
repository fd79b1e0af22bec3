import { sql } from 'kysely';
import type { Db } from './database.js';

// Tables partitioned by UTC day of a timestamp column (docs/adr/0021-bounded-run-storage.md,
// docs/adr/0024-minute-rollup-retention.md). Each day has a partition named <table>_pYYYYMMDD, made a week ahead;
// rows of a day without one wait in <table>_default until it is made, so a write never fails for want of one.
// Retention drops a day's partition once the day has wholly passed, without a row delete, its WAL or its vacuum.

const DAY_MS = 86_400_000;

/** How far ahead day partitions are made: a week of maintenance passes may fail before a write lands in default. */
export const PARTITION_DAYS_AHEAD = 7;

/** The day partitions of a table, and whether its default partition exists. */
export interface DayPartitionList {
  days: Date[];
  hasDefault: boolean;
}

export interface DayPartitions {
  nameOf(day: Date): string;
  list(db: Db): Promise<DayPartitionList>;
  /** Makes the day partitions from `now`'s day to PARTITION_DAYS_AHEAD days later that do not exist yet. */
  ensure(db: Db, now: Date): Promise<Date[]>;
  /** Drops the day partitions that end at or before `before`; a day that straddles it stays until it has passed. */
  dropBefore(db: Db, before: Date): Promise<Date[]>;
  /** Deletes up to `batch` rows of the default partition older than `before`: how many it deleted. */
  deleteDefaultRowsBefore(db: Db, before: Date, batch: number): Promise<number>;
}

const startOfDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/**
 * The partition exists already: 42P07, or 23505 when another process created the same table at the same moment
 * (the unique index of pg_type refuses the second row type of that name).
 */
const isAlreadyMade = (error: unknown) =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  (error.code === '42P07' || error.code === '23505');

/** The day partitions of `table`, partitioned by range of `column` (a timestamptz). */
export function dayPartitionsOf(table: string, column: string): DayPartitions {
  const defaultName = `${table}_default`;
  const namePattern = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`);
  const nameOf = (day: Date) => `${table}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

  const list = async (db: Db): Promise<DayPartitionList> => {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${table}::regclass`.execute(db);
    const days: Date[] = [];
    for (const { name } of rows) {
      const match = namePattern.exec(name);
      if (match !== null) days.push(new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`));
    }
    days.sort((a, b) => a.getTime() - b.getTime());
    return { days, hasDefault: rows.some(({ name }) => name === defaultName) };
  };

  /**
   * Makes the partition of `day`. Rows of that day already waiting in the default partition move into it in the
   * same transaction (attaching a partition whose rows are still in default is refused). Another process making
   * the same partition at the same moment is not an error.
   */
  const make = async (db: Db, day: Date): Promise<void> => {
    const name = sql.table(nameOf(day));
    const from = sql.lit(day.toISOString());
    const to = sql.lit(new Date(day.getTime() + DAY_MS).toISOString());
    try {
      await db.transaction().execute(async (tx) => {
        await sql`set local lock_timeout = '5s'`.execute(tx);
        await sql`create table ${name} (like ${sql.table(table)} including defaults including constraints)`.execute(
          tx,
        );
        await sql`with moved as (
            delete from ${sql.table(defaultName)} where ${sql.ref(column)} >= ${from} and ${sql.ref(column)} < ${to}
            returning *)
          insert into ${name} select * from moved`.execute(tx);
        await sql`alter table ${sql.table(table)} attach partition ${name}
          for values from (${from}) to (${to})`.execute(tx);
      });
    } catch (error) {
      if (!isAlreadyMade(error)) throw error;
    }
  };

  return {
    nameOf,
    list,

    async ensure(db, now) {
      const existing = new Set((await list(db)).days.map((day) => day.getTime()));
      const made: Date[] = [];
      const today = startOfDay(now).getTime();
      for (let day = today; day <= today + PARTITION_DAYS_AHEAD * DAY_MS; day += DAY_MS) {
        if (existing.has(day)) continue;
        await make(db, new Date(day));
        made.push(new Date(day));
      }
      return made;
    },

    async dropBefore(db, before) {
      const dropped: Date[] = [];
      for (const day of (await list(db)).days) {
        if (day.getTime() + DAY_MS > before.getTime()) continue;
        await db.transaction().execute(async (tx) => {
          await sql`set local lock_timeout = '5s'`.execute(tx);
          await sql`drop table if exists ${sql.table(nameOf(day))}`.execute(tx);
        });
        dropped.push(day);
      }
      return dropped;
    },

    async deleteDefaultRowsBefore(db, before, batch) {
      const { rows } = await sql`
        delete from ${sql.table(defaultName)} where ctid in (
          select ctid from ${sql.table(defaultName)} where ${sql.ref(column)} < ${before} limit ${batch})
        returning 1`.execute(db);
      return rows.length;
    },
  };
}
