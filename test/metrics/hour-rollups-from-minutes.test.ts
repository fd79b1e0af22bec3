import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listFailingHours,
  listHourCounts,
  listUptimeDays,
} from '../../hub/src/console/console-figures.repository.js';
import { recordGaps } from '../../hub/src/ledger/slot-gap.repository.js';
import { foldGapsIntoRollups } from '../../hub/src/metrics/gap-markers.repository.js';
import { readHoursSummedUntil, sumHoursFromMinutes } from '../../hub/src/metrics/rollup-fold.repository.js';
import { deleteExpiredMinuteRollups } from '../../hub/src/scheduling/run-retention.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { getData, recordKnownRun, seedMonitor, type KnownRun } from './metrics-fixtures.js';

// Hour and day rollups summed from minutes by a pass behind a watermark (docs/adr/0062-hour-and-day-rollups-from-
// minutes.md), on real PostgreSQL through the real run-result path and the real gap writes. Monitor `per-run` is
// recorded while the watermark is ahead of every result (each result adds itself to its hour and day rows, as
// before ADR 0062); `from-minutes` gets the same results and gaps after the watermark is moved back before them
// (only minutes written). Both must give the answers `per-run` gave, before any pass, after each pass (across
// hour boundaries and the Jan 9/Jan 10 day boundary) and after a pass cancelled mid-way.
const NOW = new Date('2026-01-10T02:30:30Z');
const on = (day: number, time: string) => new Date(`2026-01-${String(day).padStart(2, '0')}T${time}:00Z`);
const BEFORE_DATA = on(8, '00:00');
const RUNS: KnownRun[] = [
  { at: on(8, '12:00'), success: false, durationMs: 400, errorClass: 'timeout' },
  { at: on(9, '22:50'), success: true, durationMs: 100 },
  { at: on(9, '23:10'), success: false, durationMs: 200, errorClass: 'http' },
  { at: on(9, '23:40'), success: true, durationMs: 300, location: 'eu-west' },
  { at: on(9, '23:55'), success: false, durationMs: 500, errorClass: 'dns', environment: 'staging' },
  { at: on(10, '00:05'), success: true, durationMs: 600 },
  { at: on(10, '00:50'), success: false, durationMs: 700, errorClass: 'http' },
  { at: on(10, '01:10'), success: true, durationMs: 800 },
  { at: on(10, '02:20'), success: true, durationMs: 900 },
];
const GAPS = [on(9, '23:20'), on(10, '00:30'), on(10, '01:40')];
const PERIODS = ['1h', '6h', '24h', '7d', '30d'];

describe('hour and day rollups summed from minutes', () => {
  let hub: TestHub;
  let before: unknown;

  const recordGapsAt = async (monitorId: string, times: readonly Date[]) => {
    const slots = times.map((t) => ({
      organizationId: 'acme',
      monitorId,
      location: 'default',
      slotMs: t.getTime(),
      reason: 'skipped_worker_lost' as const,
    }));
    await recordGaps(hub.db, slots);
    while ((await foldGapsIntoRollups(hub.db, 10)) > 0);
  };
  // Runs up to 23:40 first, then the gaps, then the rest: some gaps land in hours already holding later results.
  const seed = async (id: string) => {
    await seedMonitor(hub, id, RUNS.slice(0, 4));
    await recordGapsAt(id, GAPS.slice(0, 1));
    for (const run of RUNS.slice(4)) await recordKnownRun(hub.db, 'acme', id, run);
    await recordGapsAt(id, GAPS.slice(1));
  };

  /** Everything a reader of hour and day rows answers for `id`, without the monitor's and its runs' ids. */
  const answers = async (id: string) => {
    const metrics: Record<string, unknown> = {};
    for (const period of PERIODS)
      for (const environment of ['', '&environment=production', '&environment=staging'])
        metrics[`${period}${environment}`] = await getData<Record<string, unknown>>(
          hub,
          `/metrics/monitors/${id}?period=${period}${environment}`,
        );
    const since = on(8, '00:00');
    const strip = <T extends { monitorId: string }>(rows: T[]) => rows.map(({ monitorId: _, ...row }) => row);
    const hourCounts = (await listHourCounts(hub.db, 'acme', since)).filter((row) => row.monitorId === id);
    return JSON.parse(
      JSON.stringify({
        metrics,
        days: strip(await listUptimeDays(hub.db, 'acme', [id], since, NOW)),
        hourCounts: strip(hourCounts),
        failingHours: strip(await listFailingHours(hub.db, 'acme', [id], since)),
      })
        .replaceAll(`"${id}"`, '"monitor"')
        .replaceAll(/"run_[0-9a-f-]+"/g, '"a run"'),
    ) as unknown;
  };
  const tierRows = async (id: string) => ({
    hours: (
      await sql<Record<string, unknown>>`select * from run_rollups_hour where monitor_id = ${id}
        order by hour, environment`.execute(hub.db)
    ).rows.map(({ monitor_id: _, ...row }) => row),
    days: (
      await sql<Record<string, unknown>>`select * from run_rollups_day where monitor_id = ${id}
        order by day, environment`.execute(hub.db)
    ).rows.map(({ monitor_id: _, ...row }) => row),
  });
  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    // The migration leaves the watermark at the current real hour, after these results: they add themselves.
    await seed('per-run');
    before = await answers('per-run');
    await sql`update rollup_fold_watermark set hours_summed_until = ${BEFORE_DATA}`.execute(hub.db);
    await seed('from-minutes');
  });
  afterAll(async () => {
    await hub.close();
  });

  it('writes no hour or day row for results and gaps in hours not yet summed', async () => {
    expect(await tierRows('from-minutes')).toEqual({ hours: [], days: [] });
  });

  it('answers as before while every hour is read from minutes, then after each pass up to the last hour', async () => {
    expect(await answers('from-minutes')).toEqual(before);
    expect(await answers('per-run')).toEqual(before);
    // The quiet hours in one pass, then one hour a pass across 23:00 and midnight (which completes Jan 9).
    const passes = [1, 45, 1, 1, 1, 1];
    for (const [index, maxHours] of passes.entries()) {
      expect(await sumHoursFromMinutes(hub.db, { now: NOW, graceMs: 0, maxHours })).toBe(maxHours);
      expect(await answers('from-minutes'), `after pass ${index + 1}`).toEqual(before);
      expect(await answers('per-run'), `after pass ${index + 1}`).toEqual(before);
    }
    // Jan 10 02:00 is the last whole hour before NOW: nothing is left to sum.
    expect(await sumHoursFromMinutes(hub.db, { now: NOW, graceMs: 0, maxHours: 1 })).toBe(0);
    expect(await readHoursSummedUntil(hub.db)).toEqual(on(10, '02:00'));
    // Summed rows equal the rows each result (and gap) added itself to, gaps counted once.
    const summed = await tierRows('from-minutes');
    const perRun = await tierRows('per-run');
    const summedHours = (rows: Array<Record<string, unknown>>) =>
      rows.filter((row) => (row.hour as Date) < on(10, '02:00'));
    expect(summed.hours).toEqual(summedHours(perRun.hours));
    // Jan 10 is not whole yet: only Jan 8 and Jan 9 are summed, and they match the rows results added to.
    expect(summed.days).toEqual(perRun.days.filter((row) => (row.day as Date) < on(10, '00:00')));
    expect(summed.hours.filter((row) => row.environment === '').map((row) => row.run_count)).toEqual([
      1, 1, 3, 2, 1,
    ]);
  });

  it('a result recorded late in an hour already summed adds itself to that hour and keeps the answers equal', async () => {
    const late: KnownRun = { at: on(10, '00:40'), success: true, durationMs: 50 };
    await recordKnownRun(hub.db, 'acme', 'per-run', late);
    await recordKnownRun(hub.db, 'acme', 'from-minutes', late);
    const now = await answers('per-run');
    expect(now).not.toEqual(before);
    expect(await answers('from-minutes')).toEqual(now);
    const hour0 = async (id: string) =>
      (await tierRows(id)).hours.filter((row) => (row.hour as Date).getTime() === on(10, '00:00').getTime());
    expect(await hour0('from-minutes')).toEqual(await hour0('per-run'));
    expect((await hour0('from-minutes')).map((row) => row.run_count)).toEqual([3, 3]);
  });
});

describe('a pass cancelled mid-way, and the minute retention', () => {
  let hub: TestHub;
  const pass = (maxHours: number) => sumHoursFromMinutes(hub.db, { now: NOW, graceMs: 0, maxHours });
  const stored = async () => ({
    hours: (await sql`select * from run_rollups_hour order by 1, 2, 3, 4`.execute(hub.db)).rows,
    days: (await sql`select * from run_rollups_day order by 1, 2, 3, 4`.execute(hub.db)).rows,
    watermark: await readHoursSummedUntil(hub.db),
  });

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await sql`update rollup_fold_watermark set hours_summed_until = ${BEFORE_DATA}`.execute(hub.db);
    await seedMonitor(hub, 'edges', RUNS);
  });
  afterAll(async () => {
    await hub.close();
  });

  it('rolls back whole when cancelled before it moves the watermark, and a pass run again sums the same rows', async () => {
    const untouched = await stored();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Another transaction holds the watermark row: the pass sums its hours, then waits to move the watermark.
    const blocker = hub.db.transaction().execute(async (tx) => {
      await sql`select 1 from rollup_fold_watermark for update`.execute(tx);
      await released;
    });
    const cancelled = pass(40);
    for (;;) {
      const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
        where wait_event_type = 'Lock' and query like 'update "rollup_fold_watermark"%'`.execute(hub.db);
      if (rows.length > 0) {
        await sql`select pg_cancel_backend(${rows[0]!.pid})`.execute(hub.db);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect(cancelled).rejects.toThrow(/cancel/);
    release();
    await blocker;
    expect(await stored()).toEqual(untouched);

    while ((await pass(40)) > 0);
    const once = await stored();
    expect(once.watermark).toEqual(on(10, '02:00'));
    // Summing the same hours again (the watermark moved back) rewrites the same rows.
    await sql`update rollup_fold_watermark set hours_summed_until = ${BEFORE_DATA}`.execute(hub.db);
    while ((await pass(7)) > 0);
    expect(await stored()).toEqual(once);
  });

  it('keeps minutes not yet summed past their retention, and drops them once summed', async () => {
    const minutesOn8 = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from run_rollups_minute
            where minute < ${on(9, '00:00')}`.execute(hub.db)
        ).rows[0]!.n,
      );
    const retention = { db: hub.db, retentionDays: 1 };
    await sql`update rollup_fold_watermark set hours_summed_until = ${on(8, '06:00')}`.execute(hub.db);
    // Jan 8 ended more than a day before Jan 10 02:30, but its 12:00 minute is not summed yet.
    await deleteExpiredMinuteRollups({ ...retention, clock: { now: () => NOW } });
    expect(await minutesOn8()).toBe(1);
    while ((await pass(24)) > 0);
    await deleteExpiredMinuteRollups({ ...retention, clock: { now: () => NOW } });
    expect(await minutesOn8()).toBe(0);
    // The Jan 8 failure is still counted, from its hour row.
    const m = await getData<{ runs: { total: number; failed: number } }>(
      hub,
      '/metrics/monitors/edges?period=7d',
    );
    expect(m.runs).toMatchObject({ total: RUNS.length, failed: 4 });
  });
});
