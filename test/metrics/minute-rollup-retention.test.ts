import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import type { MonitorMetrics } from '../../hub/src/metrics/metrics.schema.js';
import { minuteRollupPartitions } from '../../hub/src/metrics/rollup.repository.js';
import { deleteExpiredMinuteRollups } from '../../hub/src/scheduling/run-retention.js';
import { databaseEngines } from '../harness/engines.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { DAY_MS, insertMonitorRow, minuteRollupRow, today } from '../runs/run-rows.js';
import { getData, recordKnownRun, seedMonitor } from './metrics-fixtures.js';

// Minute rollups are kept MINUTE_ROLLUP_RETENTION_DAYS (here 1) and read only for periods within them
// (docs/adr/0024-minute-rollup-retention.md): dropping the older ones changes no figure. The clock is held off the
// hour (12:30:30), so the 7d and 30d periods start inside an hour, which they read from the next whole hour.
const NOW = new Date('2026-01-10T12:30:30Z');
const on = (day: number, time: string) => new Date(`2026-01-${String(day).padStart(2, '0')}T${time}:00Z`);
const PERIODS = ['1h', '6h', '24h', '7d', '30d'] as const;

describe('minute rollups past their retention', () => {
  let hub: TestHub;
  const figures = (period: string) => getData<MonitorMetrics>(hub, `/metrics/monitors/kept?period=${period}`);
  const minuteRows = () =>
    hub.db.selectFrom('run_rollups_minute').select('minute').where('monitor_id', '=', 'kept').execute();

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW }, minuteRollupRetentionDays: 1 });
    // Day partitions for Jan 3 to Jan 10; the Jan 1 row waits in the default partition.
    await minuteRollupPartitions.ensure(hub.db, on(3, '00:00'));
    await seedMonitor(hub, 'kept', [
      { at: on(1, '10:00'), success: false, durationMs: 100, errorClass: 'timeout' },
      { at: on(3, '12:10'), success: false, durationMs: 200, errorClass: 'http' },
      // After the 7d period's start (12:30:30) but before its first whole hour: the state that hour starts in.
      { at: on(3, '12:45'), success: true, durationMs: 300 },
      { at: on(5, '08:00'), success: false, durationMs: 400, errorClass: 'http' },
      { at: on(9, '20:00'), success: true, durationMs: 500 },
      { at: on(10, '12:10'), success: false, durationMs: 600, errorClass: 'dns' },
    ]);
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('reads 7d and 30d from their first whole hour, and the state before it from the hour rows', async () => {
    const week = await figures('7d');
    // Jan 5, Jan 9 and Jan 10 (Jan 3 12:45 is before 13:00).
    expect(week.runs).toEqual({ total: 3, successful: 1, failed: 2, successRate: 33.33 });
    // The Jan 3 12:45 pass holds from the start to Jan 5 08:00 (156,570 s); up again from Jan 9 20:00 to
    // Jan 10 12:10 (58,200 s): 214,770 of 604,800 s.
    expect(week.uptimePercent).toBe(35.51);
    const month = await figures('30d');
    expect(month.runs).toEqual({ total: 6, successful: 2, failed: 4, successRate: 33.33 });
    // Nothing before Jan 1 10:00, so the period counts from there (786,630 s); up Jan 3 12:45 to Jan 5 08:00
    // (155,700 s) and Jan 9 20:00 to Jan 10 12:10 (58,200 s).
    expect(month.uptimePercent).toBe(27.19);
  });

  it('drops the days past the retention, and every period keeps its figures', async () => {
    const before = await Promise.all(PERIODS.map(figures));
    const hoursBefore = await hub.db
      .selectFrom('run_rollups_hour')
      .selectAll()
      .orderBy('hour')
      .orderBy('environment')
      .execute();

    // One day at 12:30:30 on Jan 10: Jan 3 to 8 are dropped, Jan 9 straddles the cutoff and stays; the Jan 1 row
    // of the default partition is deleted.
    const deleted = await deleteExpiredMinuteRollups({
      db: hub.db,
      clock: { now: () => NOW },
      retentionDays: 1,
    });
    expect(deleted).toBe(1);
    const days = (await minuteRollupPartitions.list(hub.db)).days.map((day) =>
      day.toISOString().slice(0, 10),
    );
    expect(days).not.toContain('2026-01-08');
    expect(days).toEqual(expect.arrayContaining(['2026-01-09', '2026-01-10']));
    expect((await minuteRows()).map((row) => row.minute)).toEqual([on(9, '20:00'), on(10, '12:10')]);

    expect(
      await hub.db
        .selectFrom('run_rollups_hour')
        .selectAll()
        .orderBy('hour')
        .orderBy('environment')
        .execute(),
    ).toEqual(hoursBefore);
    // 24h starts in the Jan 5 failure: its minute row is gone, its hour row says the same.
    expect(await Promise.all(PERIODS.map(figures))).toEqual(before);
  });

  it('adds a result recorded after its minutes were dropped to its hour and day, losing none of theirs', async () => {
    const hourRow = (environment: string) =>
      hub.db
        .selectFrom('run_rollups_hour')
        .select(['run_count', 'success_count', 'up_seconds', 'last_success'])
        .where('monitor_id', '=', 'kept')
        .where('hour', '=', on(3, '12:00'))
        .where('environment', '=', environment)
        .executeTakeFirstOrThrow();
    const hourBefore = await hourRow('production');
    expect(hourBefore).toMatchObject({ run_count: 2, success_count: 1 });
    // Earlier than the hour's latest result (12:45), so the hour cannot simply be added to; its other minutes
    // (12:10, 12:45) were dropped above, so it cannot be recomputed from them either.
    await recordKnownRun(hub.db, 'acme', 'kept', { at: on(3, '12:20'), success: true, durationMs: 250 });

    for (const environment of ['production', '']) {
      const after = await hourRow(environment);
      expect(after).toEqual({ ...hourBefore, run_count: 3, success_count: 2 });
    }
    const day = await hub.db
      .selectFrom('run_rollups_day')
      .select(['run_count', 'success_count'])
      .where('monitor_id', '=', 'kept')
      .where('day', '=', on(3, '00:00'))
      .where('environment', '=', 'production')
      .executeTakeFirstOrThrow();
    expect(day).toEqual({ run_count: 3, success_count: 2 });
    expect((await figures('30d')).runs).toEqual({ total: 7, successful: 3, failed: 4, successRate: 42.86 });
  });
});

describe.each(databaseEngines)('partitioning minute rollups on $name', (engine) => {
  it('keeps every minute rollup of a database made before it, in its day', async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await migrateTo(db, '0010-status-pages');
      await insertMonitorRow(db);
      const earlier = new Date(today.getTime() - 5 * DAY_MS + 60_000);
      const row = minuteRollupRow;
      await db
        .insertInto('run_rollups_minute')
        .values([row(earlier), row(today)])
        .execute();

      await migrateToLatest(db);

      const { rows } = await sql<{ minute: Date; partition: string }>`
        select minute, tableoid::regclass::text as partition from run_rollups_minute order by minute`.execute(
        db,
      );
      expect(rows).toEqual([
        { minute: earlier, partition: minuteRollupPartitions.nameOf(new Date(today.getTime() - 5 * DAY_MS)) },
        { minute: today, partition: minuteRollupPartitions.nameOf(today) },
      ]);
      // The key still holds: a second row of the same minute is refused.
      await expect(db.insertInto('run_rollups_minute').values(row(today)).execute()).rejects.toThrow();
      expect((await minuteRollupPartitions.list(db)).hasDefault).toBe(true);

      // Down and up again, every row kept each way.
      const shape = async () => {
        const { rows: kind } = await sql<{ relkind: string }>`
          select relkind from pg_class where relname = 'run_rollups_minute'`.execute(db);
        const count = await db
          .selectFrom('run_rollups_minute')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow();
        return { relkind: kind[0]?.relkind, rows: Number(count.n) };
      };
      await migrateTo(db, '0010-status-pages');
      expect(await shape()).toEqual({ relkind: 'r', rows: 2 });
      await migrateToLatest(db);
      expect(await shape()).toEqual({ relkind: 'p', rows: 2 });

      // The key to the monitor holds too: deleting it deletes its minutes.
      await db.deleteFrom('monitors').where('id', '=', 'mon-1').execute();
      expect(await shape()).toEqual({ relkind: 'p', rows: 0 });
    } finally {
      await dispose();
    }
  });
});
