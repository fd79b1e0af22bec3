import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { PARTITION_DAYS_AHEAD } from '../../hub/src/db/day-partitions.js';
import { runPartitions } from '../../hub/src/runs/run-partitions.js';
import { insertScheduledRun } from '../../hub/src/runs/run.repository.js';
import { deleteExpiredRuns } from '../../hub/src/scheduling/run-retention.js';
import { databaseEngines } from '../harness/engines.js';
import { DAY_MS, insertMonitorRow, scheduledRunRow as scheduledRun, today } from './run-rows.js';

const daysFromToday = (days: number) => new Date(today.getTime() + days * DAY_MS);

async function partitionOfRun(db: Db, id: string): Promise<string | undefined> {
  const { rows } = await sql<{ partition: string }>`
    select tableoid::regclass::text as partition from runs where id = ${id}`.execute(db);
  return rows[0]?.partition;
}

describe.each(databaseEngines)('run partitions on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ db, dispose } = await engine.open());
    await insertMonitorRow(db);
  });
  afterEach(() => dispose());

  it('has a partition for every day from today to a week ahead once migrated', async () => {
    const { days, hasDefault } = await runPartitions.list(db);
    const wanted = Array.from({ length: PARTITION_DAYS_AHEAD + 1 }, (_, i) => daysFromToday(i).getTime());
    expect(days.map((day) => day.getTime())).toEqual(expect.arrayContaining(wanted));
    expect(hasDefault).toBe(true);
  });

  it("stores a scheduled run in its slot's day, once however often the slot is delivered", async () => {
    const slot = new Date(today.getTime() + 3_600_000);
    const first = await insertScheduledRun(db, {
      ...scheduledRun(slot, 'run_first'),
      started_at: new Date(),
    });
    const again = await insertScheduledRun(db, {
      ...scheduledRun(slot, 'run_again'),
      started_at: new Date(),
    });
    expect(first?.created_at).toEqual(slot);
    expect(again).toBeUndefined();
    expect(await partitionOfRun(db, 'run_first')).toBe(runPartitions.nameOf(today));
  });

  it('keeps a run of a day without a partition in the default one, and moves it when its day is made', async () => {
    const farDay = daysFromToday(40);
    await insertScheduledRun(db, scheduledRun(farDay, 'run_far'));
    expect(await partitionOfRun(db, 'run_far')).toBe('runs_default');

    const made = await runPartitions.ensure(db, farDay);
    expect(made.map((day) => day.getTime())).toContain(farDay.getTime());
    expect(await partitionOfRun(db, 'run_far')).toBe(runPartitions.nameOf(farDay));
    // The slot key still holds across the move.
    expect(await insertScheduledRun(db, scheduledRun(farDay, 'run_far_again'))).toBeUndefined();
    // A second pass makes nothing.
    expect(await runPartitions.ensure(db, farDay)).toEqual([]);
  });

  it('drops the days that ended before the retention and keeps the day that straddles it', async () => {
    const now = daysFromToday(40);
    await runPartitions.ensure(db, daysFromToday(8)); // days 8 to 15 get partitions of their own
    await insertScheduledRun(db, scheduledRun(new Date(daysFromToday(9).getTime() + 3_600_000), 'run_day9'));
    const straddling = new Date(daysFromToday(10).getTime() + 23 * 3_600_000);
    await insertScheduledRun(db, scheduledRun(straddling, 'run_day10'));

    // At day 40 plus an hour, 30 days of retention cut at day 10 plus an hour: day 9 has ended, day 10 has not.
    await deleteExpiredRuns({
      db,
      clock: { now: () => new Date(now.getTime() + 3_600_000) },
      retentionDays: 30,
    });

    const { days } = await runPartitions.list(db);
    const kept = days.map((day) => day.getTime());
    expect(kept).not.toContain(daysFromToday(9).getTime());
    expect(kept).toContain(daysFromToday(10).getTime());
    const left = await db.selectFrom('runs').select('id').orderBy('id').execute();
    expect(left).toEqual([{ id: 'run_day10' }]);
  });
});

describe.each(databaseEngines)('partitioning runs on $name', (engine) => {
  it('keeps every run of a database made before it, with its slot key', async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await migrateTo(db, '0008-monitor-latest-runs');
      await insertMonitorRow(db);
      const earlier = new Date(Date.now() - 5 * DAY_MS);
      await db
        .insertInto('runs')
        .values([
          { ...scheduledRun(earlier, 'run_earlier'), created_at: earlier },
          { ...scheduledRun(today, 'run_today'), created_at: today },
        ])
        .execute();

      await migrateToLatest(db);

      expect(await partitionOfRun(db, 'run_earlier')).toBe(
        runPartitions.nameOf(new Date(earlier.getTime() - (earlier.getTime() % DAY_MS))),
      );
      expect(await partitionOfRun(db, 'run_today')).toBe(runPartitions.nameOf(today));
      expect(await insertScheduledRun(db, scheduledRun(today, 'run_today_again'))).toBeUndefined();
    } finally {
      await dispose();
    }
  });
});
