import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { newId } from '../../hub/src/db/ids.js';
import type { MonitorMetrics } from '../../hub/src/metrics/metrics.schema.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { recordRunResult, type RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { insertRuns } from '../../hub/src/runs/run.repository.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  expectAllEqualsSumOfEach,
  getData,
  seedMonitor,
  totalOf,
  within1Percent,
  type KnownRun,
} from './metrics-fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

// Results of one monitor recorded at the same time in concurrent transactions on real PostgreSQL, through
// recordRunResult with the rollup hook: nothing may be lost or counted twice in the minute, hour and day rows.
//
// Concurrency is made certain, not left to timing: the writes go through a pool of their own with one
// connection per transaction (the hub's pool has 10), and a barrier hook placed before the rollup hook holds
// every transaction, its run already finished, until all of them are open; then they all enter the rollup
// hook together. Each transaction reports its backend pid, so the test checks they ran on distinct
// connections. No sleeps, no wall-clock assertions: the hub's clock is a variable the test sets.

const LOCATIONS = ['default', 'eu-west', 'us-east'];
const at = (day: number, time: string) => new Date(`2026-01-${day}T${time}Z`);

// `burst`: 20 runs i = 0..19 in the same minute, Jan 29 07:12, started at 07:12:00 + 2i s.
// location LOCATIONS[i % 3], environment production when i is even, staging when odd; duration 100 + 10i ms;
// failures i = 0 (timeout), 5 (dns), 10 (http), 15 (assertion), 19 (timeout): the last run of all fails.
const burstClasses: Record<number, string> = {
  0: 'timeout',
  5: 'dns',
  10: 'http',
  15: 'assertion',
  19: 'timeout',
};
const burst: KnownRun[] = Array.from({ length: 20 }, (_, i) => ({
  at: new Date(at(29, '07:12:00').getTime() + 2_000 * i),
  success: burstClasses[i] === undefined,
  durationMs: 100 + 10 * i,
  ...(burstClasses[i] === undefined ? {} : { errorClass: burstClasses[i] }),
  location: LOCATIONS[i % 3]!,
  environment: i % 2 === 0 ? 'production' : 'staging',
}));

// `spread`: 24 runs h = 0..23, one in each hour of Jan 30 at hh:30; location LOCATIONS[h % 3], production
// when h is even, staging when odd; duration 100 + h ms; h = 3, 7, 11, 15, 19, 23 fail (all staging) with
// timeout, dns, http, timeout, dns, http.
const spreadClasses = ['timeout', 'dns', 'http'];
const spread: KnownRun[] = Array.from({ length: 24 }, (_, h) => ({
  at: at(30, `${String(h).padStart(2, '0')}:30:00`),
  success: h % 4 !== 3,
  durationMs: 100 + h,
  ...(h % 4 === 3 ? { errorClass: spreadClasses[((h - 3) / 4) % 3]! } : {}),
  location: LOCATIONS[h % 3]!,
  environment: h % 2 === 0 ? 'production' : 'staging',
}));

/** Holds every transaction that reaches it until `parties` of them have; records their backend pids. */
function barrier(parties: number) {
  let arrived = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const backends = new Set<number>();
  const hook: RunFinishedHook = {
    name: 'all-transactions-open',
    async onRunsFinished(tx) {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
      backends.add(rows[0]!.pid);
      arrived += 1;
      if (arrived === parties) release();
      await released;
    },
  };
  return { hook, backends, release };
}

/** Inserts the runs as running, then records all their results at once, each in its own transaction. */
async function recordConcurrently(db: Db, monitorId: string, runs: KnownRun[]) {
  const rows = await insertRuns(
    db,
    runs.map((run) => ({
      organization_id: 'acme',
      id: newId('run'),
      monitor_id: monitorId,
      execution_group_id: newId('grp'),
      location: run.location ?? 'default',
      environment: run.environment ?? 'production',
      status: 'running' as const,
      triggered_by: 'schedule' as const,
      schedule_slot: null,
      started_at: run.at,
      created_at: run.at,
      errors: jsonColumn([]),
    })),
  );
  const byStart = new Map(rows.map((row) => [row.started_at!.getTime(), row]));
  const gate = barrier(runs.length);
  const settled = await Promise.allSettled(
    runs.map((run) => {
      const error = `get: ${run.errorClass ?? 'runner'} failure`;
      return recordRunResult(
        db,
        byStart.get(run.at.getTime())!,
        {
          success: run.success,
          errors: run.success ? [] : [error],
          steps: [
            run.success
              ? { nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed' }
              : { nodeId: 'get', type: 'HTTP_REQUEST', status: 'failed', errorClass: run.errorClass, error },
          ],
          completedAt: new Date(run.at.getTime() + run.durationMs),
          durationMs: run.durationMs,
        },
        [gate.hook, rollupHook],
      ).catch((failure: unknown) => {
        // A transaction that fails before the barrier must not leave the others waiting for it.
        gate.release();
        throw failure;
      });
    }),
  );
  return { settled, backends: gate.backends };
}

// The docs' bucket: 0 under 1 ms, i >= 1 for [1.02^(i-1), 1.02^i) ms (none of the durations here is near an edge).
const bucketOf = (ms: number) => Math.floor(Math.log(ms) / Math.log(1.02)) + 1;
const histogramOf = (durations: number[]) => {
  const counts: Record<string, number> = {};
  for (const ms of durations) counts[bucketOf(ms)] = (counts[bucketOf(ms)] ?? 0) + 1;
  return counts;
};
/** The durations of the runs of `environment`, or of every environment (''). */
const durationsOf = (runs: KnownRun[], environment: string) =>
  runs.filter((r) => environment === '' || r.environment === environment).map((r) => r.durationMs);

describe('rollups written by concurrent transactions', () => {
  let hub: TestHub;
  let writer: Db;
  let now = new Date('2026-01-31T09:40:30Z');
  const monitor = (id: string, query: string, clock: Date) => {
    now = clock;
    return getData<MonitorMetrics>(hub, `/metrics/monitors/${id}?${query}`);
  };
  const tierColumns = [
    'environment',
    'run_count',
    'success_count',
    'failure_count',
    'duration_count',
    'duration_sum_ms',
    'duration_min_ms',
    'duration_max_ms',
    'histogram',
    'error_classes',
    'first_minute',
    'up_seconds',
    'last_started_at',
    'last_success',
  ] as const;
  /** A monitor's hour rows, by hour and environment. */
  const hourRows = (monitorId: string) =>
    hub.db
      .selectFrom('run_rollups_hour')
      .select([...tierColumns, 'hour'])
      .where('monitor_id', '=', monitorId)
      .orderBy('hour')
      .orderBy('environment')
      .execute();
  /** A monitor's day rows, by day and environment. */
  const dayRows = (monitorId: string) =>
    hub.db
      .selectFrom('run_rollups_day')
      .select([...tierColumns, 'day'])
      .where('monitor_id', '=', monitorId)
      .orderBy('day')
      .orderBy('environment')
      .execute();

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => now } });
    // One connection per concurrent transaction: the largest batch below has 24.
    writer = openDatabase({ url: hub.databaseUrl, dataDir: '/nonexistent', poolSize: 24 }).db;
    await seedMonitor(hub, 'burst', []);
    await seedMonitor(hub, 'spread', []);
  });
  afterAll(async () => {
    await writer?.destroy();
    await hub?.close();
  });

  describe('20 results of one minute, at once', () => {
    let outcome: Awaited<ReturnType<typeof recordConcurrently>>;
    beforeAll(async () => {
      outcome = await recordConcurrently(writer, 'burst', burst);
    });

    it('all 20 transactions were open at once, on 20 connections, and all committed', () => {
      expect(outcome.backends.size).toBe(20);
      expect(
        outcome.settled.map((s) => (s.status === 'fulfilled' ? s.value?.status : String(s.reason))),
      ).toEqual(burst.map((run) => (run.success ? 'completed' : 'failed')));
    });

    it('the minute rows hold every run once', async () => {
      const rows = await hub.db
        .selectFrom('run_rollups_minute')
        .select([
          'location',
          'environment',
          'minute',
          'run_count',
          'success_count',
          'failure_count',
          'duration_count',
          'duration_sum_ms',
          'duration_min_ms',
          'duration_max_ms',
          'error_classes',
          'last_started_at',
          'last_success',
          'histogram',
        ])
        .where('monitor_id', '=', 'burst')
        .orderBy('location')
        .orderBy('environment')
        .execute();
      // One row per (location, environment) = i mod 6; by hand:
      //   i % 6 = 0 default/production  i = 0 6 12 18   100 160 220 280 = 760   fail 0 (timeout); last 18 (07:12:36) pass
      //   i % 6 = 3 default/staging     i = 3 9 15      130 190 250 = 570       fail 15 (assertion); last 15 (:30) fails
      //   i % 6 = 4 eu-west/production  i = 4 10 16     140 200 260 = 600       fail 10 (http); last 16 (:32) pass
      //   i % 6 = 1 eu-west/staging     i = 1 7 13 19   110 170 230 290 = 800   fail 19 (timeout); last 19 (:38) fails
      //   i % 6 = 2 us-east/production  i = 2 8 14      120 180 240 = 540       no failure; last 14 (:28) pass
      //   i % 6 = 5 us-east/staging     i = 5 11 17     150 210 270 = 630       fail 5 (dns); last 17 (:34) pass
      const row = (
        location: string,
        environment: string,
        [runs, failures]: [number, number],
        [sum, min, max]: [number, number, number],
        errors: Record<string, number>,
        lastSecond: number,
        lastSuccess: boolean,
      ) => ({
        location,
        environment,
        minute: at(29, '07:12:00'),
        run_count: runs,
        success_count: runs - failures,
        failure_count: failures,
        duration_count: runs,
        duration_sum_ms: sum,
        duration_min_ms: min,
        duration_max_ms: max,
        error_classes: errors,
        last_started_at: new Date(at(29, '07:12:00').getTime() + lastSecond * 1000),
        last_success: lastSuccess,
      });
      expect(rows.map(({ histogram: _, ...rest }) => rest)).toEqual([
        row('default', 'production', [4, 1], [760, 100, 280], { timeout: 1 }, 36, true),
        row('default', 'staging', [3, 1], [570, 130, 250], { assertion: 1 }, 30, false),
        row('eu-west', 'production', [3, 1], [600, 140, 260], { http: 1 }, 32, true),
        row('eu-west', 'staging', [4, 1], [800, 110, 290], { timeout: 1 }, 38, false),
        row('us-east', 'production', [3, 0], [540, 120, 240], {}, 28, true),
        row('us-east', 'staging', [3, 1], [630, 150, 270], { dns: 1 }, 34, true),
      ]);
      // 4 + 3 + 3 + 4 + 3 + 3 = 20 runs; each row's histogram counts each of its runs once.
      expect(rows.map((r) => totalOf(r.histogram))).toEqual([4, 3, 3, 4, 3, 3]);
      expect(rows[0]!.histogram).toEqual(histogramOf([100, 160, 220, 280]));
    });

    it('the hour and day rows hold the sums, and the last result of the latest run', async () => {
      // One hour and one day: ordered by environment.
      const hours = await hourRows('burst');
      const days = await dayRows('burst');
      const row = (
        environment: string,
        [runs, failures]: [number, number],
        [sum, min, max]: [number, number, number],
        errors: Record<string, number>,
        lastSecond: number,
        lastSuccess: boolean,
      ) => ({
        environment,
        run_count: runs,
        success_count: runs - failures,
        failure_count: failures,
        duration_count: runs,
        duration_sum_ms: sum,
        duration_min_ms: min,
        duration_max_ms: max,
        histogram: histogramOf(durationsOf(burst, environment)),
        error_classes: errors,
        first_minute: at(29, '07:12:00'),
        last_started_at: new Date(at(29, '07:12:00').getTime() + lastSecond * 1000),
        last_success: lastSuccess,
      });
      // Every environment: 20 runs, 5 failures, 100 + 110 + ... + 290 = 20 x 100 + 10 x 190 = 3,900 ms; the last
      // run (i = 19, 07:12:38) failed. production (even i): 10 runs, failures 0 and 10, 1,900 ms, last i = 18
      // passed. staging (odd i): 10 runs, failures 5, 15, 19, 2,000 ms, last i = 19 failed.
      const all = row(
        '',
        [20, 5],
        [3900, 100, 290],
        { timeout: 2, dns: 1, http: 1, assertion: 1 },
        38,
        false,
      );
      const production = row('production', [10, 2], [1900, 100, 280], { timeout: 1, http: 1 }, 36, true);
      const staging = row(
        'staging',
        [10, 3],
        [2000, 110, 290],
        { timeout: 1, dns: 1, assertion: 1 },
        38,
        false,
      );
      // Uptime from 07:12: the latest result of the minute holds. Every environment: i = 19 failed -> 0 s.
      // production: i = 18 passed -> 07:12 -> 08:00 = 2,880 s in the hour, + 16 h (08:00 -> 24:00) = 60,480 s
      // in the day. staging: i = 19 failed -> 0 s.
      expect(hours).toEqual([
        { ...all, hour: at(29, '07:00:00'), up_seconds: 0 },
        { ...production, hour: at(29, '07:00:00'), up_seconds: 2_880 },
        { ...staging, hour: at(29, '07:00:00'), up_seconds: 0 },
      ]);
      expect(days).toEqual([
        { ...all, day: at(29, '00:00:00'), up_seconds: 0 },
        { ...production, day: at(29, '00:00:00'), up_seconds: 60_480 },
        { ...staging, day: at(29, '00:00:00'), up_seconds: 0 },
      ]);
      expect(totalOf(hours[0]!.histogram)).toBe(20);
      expect(totalOf(days[0]!.histogram)).toBe(20);
      expectAllEqualsSumOfEach(hours, 'hour');
      expectAllEqualsSumOfEach(days, 'day');
    });

    it('the metrics endpoint reads the same figures from minutes, hours and days', async () => {
      // 1h at 07:30:30 reads minutes; 6h at 12:30:30 reads the 07:00 hour row; 7d on Jan 31 reads the Jan 29 day.
      const fromMinutes = await monitor('burst', 'period=1h', at(29, '07:30:30'));
      const fromHours = await monitor('burst', 'period=6h', at(29, '12:30:30'));
      const fromDays = await monitor('burst', 'period=7d', at(31, '09:40:30'));
      for (const m of [fromMinutes, fromHours, fromDays]) {
        expect(m.runs).toEqual({ total: 20, successful: 15, failed: 5, successRate: 75 });
        // 3,900 / 20 = 195 ms.
        expect(m.latency).toMatchObject({ minDurationMs: 100, avgDurationMs: 195, maxDurationMs: 290 });
        // Sorted 100, 110, ... 290: p50 = 10th = 190, p95 = 19th = 280, p99 = 20th = 290.
        within1Percent(m.latency.p50DurationMs, 190);
        within1Percent(m.latency.p95DurationMs, 280);
        within1Percent(m.latency.p99DurationMs, 290);
        expect(m.errorDistribution).toEqual({ timeout: 2, dns: 1, http: 1, assertion: 1 });
        // The latest run (i = 19) failed; from 07:12 on, the minute's latest result (that failure) holds.
        expect(m.status).toBe('failing');
        expect(m.uptimePercent).toBe(0);
      }
      expect(fromHours.latency).toEqual(fromMinutes.latency);
      expect(fromDays.latency).toEqual(fromMinutes.latency);
      // In production the minute's latest run (i = 18) passed: up from 07:12 to the end of each period.
      const production = await monitor('burst', 'period=7d&environment=production', at(31, '09:40:30'));
      expect(production.runs).toEqual({ total: 10, successful: 8, failed: 2, successRate: 80 });
      expect(production.uptimePercent).toBe(100);
      const staging = await monitor('burst', 'period=6h&environment=staging', at(29, '12:30:30'));
      expect(staging.runs).toEqual({ total: 10, successful: 7, failed: 3, successRate: 70 });
      expect(staging.uptimePercent).toBe(0);
    });
  });

  describe('24 results in the 24 hours of one day, at once', () => {
    let outcome: Awaited<ReturnType<typeof recordConcurrently>>;
    beforeAll(async () => {
      outcome = await recordConcurrently(writer, 'spread', spread);
    });

    it('all 24 transactions were open at once, on 24 connections, and all committed', () => {
      expect(outcome.backends.size).toBe(24);
      expect(outcome.settled.filter((s) => s.status === 'rejected').map((s) => String(s.reason))).toEqual([]);
      expect(outcome.settled.every((s) => s.status === 'fulfilled' && s.value !== undefined)).toBe(true);
    });

    it('each hour holds its one run, per environment and for every environment', async () => {
      const hours = await hourRows('spread');
      expect(hours).toHaveLength(48);
      for (let h = 0; h < 24; h += 1) {
        const pair = hours.slice(2 * h, 2 * h + 2);
        const label = `hour ${h}`;
        expect(
          pair.map((r) => [r.hour, r.environment, r.run_count, r.failure_count, r.duration_sum_ms]),
          label,
        ).toEqual([
          [at(30, `${String(h).padStart(2, '0')}:00:00`), '', 1, h % 4 === 3 ? 1 : 0, 100 + h],
          [
            at(30, `${String(h).padStart(2, '0')}:00:00`),
            h % 2 === 0 ? 'production' : 'staging',
            1,
            h % 4 === 3 ? 1 : 0,
            100 + h,
          ],
        ]);
        // hh:30 -> the end of the hour, 1,800 s, when the run passed.
        expect(
          pair.map((r) => r.up_seconds),
          label,
        ).toEqual(h % 4 === 3 ? [0, 0] : [1_800, 1_800]);
        expectAllEqualsSumOfEach(pair, label);
      }
    });

    it('the day rows hold all 24 runs and the uptime of the whole day', async () => {
      const days = await dayRows('spread');
      const day = at(30, '00:00:00');
      expect(days).toEqual([
        {
          // 24 runs; 6 failures (h = 3, 7, ..., 23); 24 x 100 + (0 + ... + 23 = 276) = 2,676 ms.
          // Up from 00:30: each failure holds one hour (to the next hh:30), the 23:30 one half an hour:
          // 23.5 h - 5 x 1 h - 0.5 h = 18 h = 64,800 s.
          environment: '',
          day,
          run_count: 24,
          success_count: 18,
          failure_count: 6,
          duration_count: 24,
          duration_sum_ms: 2676,
          duration_min_ms: 100,
          duration_max_ms: 123,
          histogram: histogramOf(durationsOf(spread, '')),
          error_classes: { timeout: 2, dns: 2, http: 2 },
          first_minute: at(30, '00:30:00'),
          up_seconds: 64_800,
          last_started_at: at(30, '23:30:00'),
          last_success: false,
        },
        {
          // Even hours, all passed: 12 x 100 + (0 + 2 + ... + 22 = 132) = 1,332 ms; up 00:30 -> 24:00 = 84,600 s.
          environment: 'production',
          day,
          run_count: 12,
          success_count: 12,
          failure_count: 0,
          duration_count: 12,
          duration_sum_ms: 1332,
          duration_min_ms: 100,
          duration_max_ms: 122,
          histogram: histogramOf(durationsOf(spread, 'production')),
          error_classes: {},
          first_minute: at(30, '00:30:00'),
          up_seconds: 84_600,
          last_started_at: at(30, '22:30:00'),
          last_success: true,
        },
        {
          // Odd hours: 12 x 100 + (1 + 3 + ... + 23 = 144) = 1,344 ms. Passes at 01, 05, 09, 13, 17, 21 hold
          // two hours each until the next failure: 6 x 7,200 = 43,200 s.
          environment: 'staging',
          day,
          run_count: 12,
          success_count: 6,
          failure_count: 6,
          duration_count: 12,
          duration_sum_ms: 1344,
          duration_min_ms: 101,
          duration_max_ms: 123,
          histogram: histogramOf(durationsOf(spread, 'staging')),
          error_classes: { timeout: 2, dns: 2, http: 2 },
          first_minute: at(30, '01:30:00'),
          up_seconds: 43_200,
          last_started_at: at(30, '23:30:00'),
          last_success: false,
        },
      ]);
      expect(days.map((r) => totalOf(r.histogram))).toEqual([24, 12, 12]);
      expectAllEqualsSumOfEach(days, 'day');
    });

    it('the metrics endpoint agrees, from the day row and from the hour rows', async () => {
      const week = await monitor('spread', 'period=7d', at(31, '09:40:30'));
      expect(week.runs).toEqual({ total: 24, successful: 18, failed: 6, successRate: 75 });
      // 2,676 / 24 = 111.5 ms.
      expect(week.latency).toMatchObject({ minDurationMs: 100, avgDurationMs: 111.5, maxDurationMs: 123 });
      expect(week.errorDistribution).toEqual({ timeout: 2, dns: 2, http: 2 });
      expect(week.status).toBe('failing');
      // No result before; counted from Jan 30 00:30 to Jan 31 09:40:30 = 86,400 + 33,030 = 119,430 s, of
      // which up 64,800 (the day; its last result, a failure, then holds) -> 54.26%.
      expect(week.uptimePercent).toBe(54.26);

      // 24h from Jan 30 09:40:30 reads the hour rows 10:00 .. 23:00: h = 10 .. 23, 14 runs, failures 11 (http),
      // 15 (timeout), 19 (dns), 23 (http); 14 x 100 + (10 + ... + 23 = 231) = 1,631 ms -> 116.5 ms.
      const day = await monitor('spread', 'period=24h', at(31, '09:40:30'));
      expect(day.runs).toEqual({ total: 14, successful: 10, failed: 4, successRate: 71.43 });
      expect(day.latency).toMatchObject({ minDurationMs: 110, avgDurationMs: 116.5, maxDurationMs: 123 });
      expect(day.errorDistribution).toEqual({ http: 2, timeout: 1, dns: 1 });
      // The state at 09:40:30 is h = 9's pass (09:30): up until 10:30, 2,970 s; then up 10:30-11:30, 12:30-15:30,
      // 16:30-19:30 and 20:30-23:30 = 10 h = 36,000 s; down from 23:30 on. 38,970 of 86,400 s -> 45.1%.
      expect(day.uptimePercent).toBe(45.1);
    });
  });
});
