import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MetricsSummary,
  MonitorMetrics,
  MonitorMetricsRow,
} from '../../hub/src/metrics/metrics.schema.js';
import { planSegments } from '../../hub/src/metrics/rollup.repository.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  expectAllEqualsSumOfEach,
  getBody,
  getData,
  recordKnownRun,
  seedMonitor,
  totalOf,
  within1Percent,
  type KnownRun,
} from './metrics-fixtures.js';

// Periods of 7 and 30 days read whole UTC days from the daily tier, hours for the partial days at the edges
// and for the current day, and minutes for the partial hours at the edges. Every figure below is worked out by
// hand from the per-minute definitions (docs/metrics.md), with the clock held off the hour and off midnight.
//
// NOW = Sat 2026-01-31 09:40:30Z.
//   7d:  periodStart Jan 24 09:40:30 -> minutes [Jan 24 09:40, 10:00), hours [Jan 24 10:00, Jan 25 00:00),
//        days [Jan 25, Jan 31), hours [Jan 31 00:00, 09:00), minutes [Jan 31 09:00, 09:40:30].
//   30d: periodStart Jan 1 09:40:30  -> minutes [Jan 1 09:40, 10:00), hours [Jan 1 10:00, Jan 2 00:00),
//        days [Jan 2, Jan 31), hours [Jan 31 00:00, 09:00), minutes [Jan 31 09:00, 09:40:30].
//
// Monitor `daily` (environment production; runs in production (prod) and staging, locations default / eu-west):
//   R1  Jan  1 08:00:00  prod    default  pass   100 ms            (before the 30d period)
//   R2  Jan  1 09:50:00  prod    eu-west  pass   200 ms            (30d: first partial hour, minutes)
//   R3  Jan  1 23:59:30  prod    default  FAIL   800 ms timeout    (just before midnight; holds over Jan 2, 3)
//   R4  Jan  4 00:00:20  staging eu-west  FAIL   500 ms dns        (just after midnight)
//   R5  Jan  4 06:00:00  prod    default  pass   250 ms
//   R6  Jan 12 13:45:00  prod    eu-west  FAIL   450 ms http
//   R7  Jan 12 14:05:00  prod    default  pass   260 ms
//   R8  Jan 24 09:40:10  prod    default  FAIL   700 ms assertion  (20 s before the 7d start, in its minute)
//   R9  Jan 24 23:59:50  prod    eu-west  pass   120 ms            (just before midnight)
//   R10 Jan 25 00:00:10  staging default  FAIL   900 ms connection (just after; holds over Jan 26, 27)
//   R11 Jan 28 10:15:00  prod    default  pass   180 ms
//   R12 Jan 31 00:00:40  prod    eu-west  pass   220 ms            (current day, just after midnight)
//   R13 Jan 31 08:15:00  staging eu-west  FAIL  1000 ms timeout
//   R14 Jan 31 09:20:00  prod    default  pass   160 ms            (current hour, minutes)
//   R15 Jan 31 09:40:05  prod    default  pass   140 ms            (current minute)
// Monitor `edge` (production): E1 Jan 20 23:59:59 pass 40 ms, E2 Jan 21 00:00:01 FAIL 5000 ms tls.
// Jan 2, 3, 5-11, 13-19, 22, 23, 26, 27, 29, 30 have no run of `daily` at all.
const NOW = new Date('2026-01-31T09:40:30Z');
const on = (day: number, time: string) =>
  new Date(`2026-01-${String(day).padStart(2, '0')}T${time.length === 5 ? `${time}:00` : time}Z`);
const iso = (day: number, time: string) => on(day, time).toISOString();

const daily: Record<string, KnownRun> = {
  R1: { at: on(1, '08:00'), success: true, durationMs: 100 },
  R2: { at: on(1, '09:50'), success: true, durationMs: 200, location: 'eu-west' },
  R3: { at: on(1, '23:59:30'), success: false, durationMs: 800, errorClass: 'timeout' },
  R4: {
    at: on(4, '00:00:20'),
    success: false,
    durationMs: 500,
    errorClass: 'dns',
    environment: 'staging',
    location: 'eu-west',
  },
  R5: { at: on(4, '06:00'), success: true, durationMs: 250 },
  R6: { at: on(12, '13:45'), success: false, durationMs: 450, errorClass: 'http', location: 'eu-west' },
  R7: { at: on(12, '14:05'), success: true, durationMs: 260 },
  R8: { at: on(24, '09:40:10'), success: false, durationMs: 700, errorClass: 'assertion' },
  R9: { at: on(24, '23:59:50'), success: true, durationMs: 120, location: 'eu-west' },
  R10: {
    at: on(25, '00:00:10'),
    success: false,
    durationMs: 900,
    errorClass: 'connection',
    environment: 'staging',
  },
  R11: { at: on(28, '10:15'), success: true, durationMs: 180 },
  R12: { at: on(31, '00:00:40'), success: true, durationMs: 220, location: 'eu-west' },
  R13: {
    at: on(31, '08:15'),
    success: false,
    durationMs: 1000,
    errorClass: 'timeout',
    environment: 'staging',
    location: 'eu-west',
  },
  R14: { at: on(31, '09:20'), success: true, durationMs: 160 },
  R15: { at: on(31, '09:40:05'), success: true, durationMs: 140 },
};
// Recorded out of order (each day and hour row is recomputed from the finer rows, whatever the order).
const recordingOrder = [
  'R1',
  'R2',
  'R5',
  'R4',
  'R3',
  'R7',
  'R6',
  'R9',
  'R8',
  'R10',
  'R11',
  'R13',
  'R12',
  'R15',
  'R14',
];

describe('figures read from the daily rollup tier', () => {
  let hub: TestHub;
  const ids: Record<string, string> = {};
  const monitor = (id: string, query: string) =>
    getData<MonitorMetrics>(hub, `/metrics/monitors/${id}?${query}`);

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await seedMonitor(hub, 'daily', []);
    for (const name of recordingOrder)
      ids[name] = await recordKnownRun(hub.db, 'acme', 'daily', daily[name]!);
    const edge = await seedMonitor(hub, 'edge', [
      { at: on(20, '23:59:59'), success: true, durationMs: 40 },
      { at: on(21, '00:00:01'), success: false, durationMs: 5000, errorClass: 'tls' },
    ]);
    ids.E1 = edge[0]!;
    ids.E2 = edge[1]!;
  });
  afterAll(async () => {
    await hub.close();
  });

  it('7d: counts, latency, errors, status and time-weighted uptime across empty days and midnights', async () => {
    const m = await monitor('daily', 'period=7d');
    expect(m.periodStart).toBe('2026-01-24T09:40:30.000Z');
    expect(m.periodEnd).toBe('2026-01-31T09:40:30.000Z');
    // R8 (started in the minute of periodStart, so it counts) .. R15: 8 runs; passes R9, R11, R12, R14, R15.
    expect(m.runs).toEqual({ total: 8, successful: 5, failed: 3, successRate: 62.5 });
    // 700 + 120 + 900 + 180 + 220 + 1000 + 160 + 140 = 3,420 ms / 8 = 427.5 ms.
    expect(m.latency).toMatchObject({ minDurationMs: 120, avgDurationMs: 427.5, maxDurationMs: 1000 });
    // Sorted: 120 140 160 180 | 220 700 900 1000: p50 = 4th = 180; p95 = p99 = 8th = 1000.
    within1Percent(m.latency.p50DurationMs, 180);
    within1Percent(m.latency.p95DurationMs, 1000);
    within1Percent(m.latency.p99DurationMs, 1000);
    expect(m.errorDistribution).toEqual({ assertion: 1, connection: 1, timeout: 1 });
    // The latest run in the period (R15) passed, but 62.5% < 99%.
    expect(m.status).toBe('degraded');
    // R8 fails from periodStart (09:40:30, its minute clamped to the period). Up:
    //   Jan 24 23:59 (R9) -> Jan 25 00:00 (R10 fails)                                  60 s
    //   Jan 28 10:15 (R11) -> Jan 31 08:15 (R13 fails; R12 passes, no change) 3 d - 2 h = 252,000 s
    //   Jan 31 09:20 (R14) -> 09:40:30 (now; R15 passes, no change)                  1,230 s
    // 253,290 s of 604,800 -> 41.88%.
    expect(m.uptimePercent).toBe(41.88);
    expect(m.recentFailures.map((f) => f.id)).toEqual([ids.R13, ids.R10, ids.R8]);
    expect(m.recentFailures[0]).toMatchObject({
      startedAt: iso(31, '08:15'),
      errors: ['get: timeout failure'],
    });
    expect(m.lastRun).toEqual({
      id: ids.R15,
      status: 'completed',
      success: true,
      startedAt: iso(31, '09:40:05'),
      durationMs: 140,
    });
  });

  it('7d per environment reads its own day and hour rows', async () => {
    const production = await monitor('daily', 'period=7d&environment=production');
    // R8, R9, R11, R12, R14, R15: 5 of 6 passed -> 83.33%.
    expect(production.runs).toEqual({ total: 6, successful: 5, failed: 1, successRate: 83.33 });
    // 700 + 120 + 180 + 220 + 160 + 140 = 1,520 / 6 = 253.33 ms.
    expect(production.latency).toMatchObject({
      minDurationMs: 120,
      avgDurationMs: 253.33,
      maxDurationMs: 700,
    });
    expect(production.errorDistribution).toEqual({ assertion: 1 });
    // Without the staging failures R10 and R13: down from periodStart to Jan 24 23:59 (R9), then up to now:
    // Jan 24 23:59 -> Jan 31 09:40:30 = 6 d + 9 h 41 min 30 s = 518,400 + 34,890 = 553,290 of 604,800 s -> 91.48%.
    expect(production.uptimePercent).toBe(91.48);

    const staging = await monitor('daily', 'period=7d&environment=staging');
    expect(staging.runs).toEqual({ total: 2, successful: 0, failed: 2, successRate: 0 });
    // (900 + 1000) / 2 = 950 ms.
    expect(staging.latency).toMatchObject({ minDurationMs: 900, avgDurationMs: 950, maxDurationMs: 1000 });
    expect(staging.errorDistribution).toEqual({ connection: 1, timeout: 1 });
    expect(staging.status).toBe('failing');
    // The state before the period is R4 (a failure, Jan 4), then R10 and R13 fail: never up.
    expect(staging.uptimePercent).toBe(0);
  });

  it('30d: every tier at once, starting in the state of the run before the period', async () => {
    const m = await monitor('daily', 'period=30d');
    expect(m.periodStart).toBe('2026-01-01T09:40:30.000Z');
    // R2 .. R15: 14 runs; passes R2, R5, R7, R9, R11, R12, R14, R15 -> 8 / 14 = 57.14%.
    expect(m.runs).toEqual({ total: 14, successful: 8, failed: 6, successRate: 57.14 });
    // 200 + 800 + 500 + 250 + 450 + 260 + 700 + 120 + 900 + 180 + 220 + 1000 + 160 + 140 = 5,880 / 14 = 420 ms.
    expect(m.latency).toMatchObject({ minDurationMs: 120, avgDurationMs: 420, maxDurationMs: 1000 });
    // Sorted: 120 140 160 180 200 220 250 | 260 450 500 700 800 900 1000: p50 = 7th = 250, p95 = 14th = 1000.
    within1Percent(m.latency.p50DurationMs, 250);
    within1Percent(m.latency.p95DurationMs, 1000);
    expect(m.errorDistribution).toEqual({ timeout: 2, dns: 1, http: 1, assertion: 1, connection: 1 });
    expect(m.status).toBe('degraded');
    // The state at periodStart is R1 (pass, Jan 1 08:00), which holds until R2. Up:
    //   Jan  1 09:40:30 -> 09:50 (R1 holds)                                            570 s
    //   Jan  1 09:50 (R2) -> 23:59 (R3 fails; holds over Jan 2 and 3, R4 fails again)   50,940 s
    //   Jan  4 06:00 (R5) -> Jan 12 13:45 (R6) = 8 d + 7 h 45 min = 691,200 + 27,900 = 719,100 s
    //   Jan 12 14:05 (R7) -> Jan 24 09:40 (R8) = 12 d - 4 h 25 min = 1,036,800 - 15,900 = 1,020,900 s
    //   then as in 7d: 60 + 252,000 + 1,230                                            253,290 s
    // 570 + 50,940 + 719,100 + 1,020,900 + 253,290 = 2,044,800 of 2,592,000 s -> 78.89%.
    expect(m.uptimePercent).toBe(78.89);
    expect(m.recentFailures.map((f) => f.id)).toEqual([ids.R13, ids.R10, ids.R8, ids.R6, ids.R4, ids.R3]);
  });

  it('30d per environment', async () => {
    const production = await monitor('daily', 'period=30d&environment=production');
    // R2, R3, R5, R6, R7, R8, R9, R11, R12, R14, R15: 8 of 11 passed -> 72.73%.
    expect(production.runs).toEqual({ total: 11, successful: 8, failed: 3, successRate: 72.73 });
    // 5,880 - 500 (R4) - 900 (R10) - 1,000 (R13) = 3,480 / 11 = 316.36 ms.
    expect(production.latency).toMatchObject({
      minDurationMs: 120,
      avgDurationMs: 316.36,
      maxDurationMs: 800,
    });
    expect(production.errorDistribution).toEqual({ timeout: 1, http: 1, assertion: 1 });
    // As the whole monitor up to Jan 24 (R4 only repeats a failure): 570 + 50,940 + 719,100 + 1,020,900;
    // then up from Jan 24 23:59 to now: 553,290. 2,344,800 of 2,592,000 s -> 90.46%.
    expect(production.uptimePercent).toBe(90.46);

    const staging = await monitor('daily', 'period=30d&environment=staging');
    // R4, R10, R13: (500 + 900 + 1000) / 3 = 800 ms.
    expect(staging.runs).toEqual({ total: 3, successful: 0, failed: 3, successRate: 0 });
    expect(staging.latency).toMatchObject({ minDurationMs: 500, avgDurationMs: 800, maxDurationMs: 1000 });
    expect(staging.errorDistribution).toEqual({ dns: 1, connection: 1, timeout: 1 });
    expect(staging.uptimePercent).toBe(0);
  });

  it('30d: an up minute just before midnight, then a failure held over ten days', async () => {
    const m = await monitor('edge', 'period=30d');
    expect(m.runs).toEqual({ total: 2, successful: 1, failed: 1, successRate: 50 });
    expect(m.latency).toMatchObject({ minDurationMs: 40, avgDurationMs: 2520, maxDurationMs: 5000 });
    expect(m.errorDistribution).toEqual({ tls: 1 });
    expect(m.status).toBe('failing');
    // No result before: the period counts from E1's minute, Jan 20 23:59, to now: 10 d + 9 h 41 min 30 s =
    // 864,000 + 34,890 = 898,890 s. Up only 23:59 -> 00:00 = 60 s -> 0.0067% -> 0.01%.
    expect(m.uptimePercent).toBe(0.01);
  });

  it('30d summary and list over both monitors', async () => {
    const summary = await getData<MetricsSummary>(hub, '/metrics/summary?period=30d');
    expect(summary).toMatchObject({
      period: '30d',
      periodStart: '2026-01-01T09:40:30.000Z',
      periodEnd: '2026-01-31T09:40:30.000Z',
      // daily passed last (degraded, still passing); edge failed last.
      monitors: { total: 2, passing: 1, failing: 1, noRecentRuns: 0 },
      // 14 + 2 runs, 8 + 1 passed -> 9 / 16 = 56.25%.
      runs: { total: 16, successful: 9, failed: 7, successRate: 56.25 },
      // Mean over the two monitors that ran: (78.89 + 0.01) / 2 = 39.45.
      uptimePercent: 39.45,
      failingMonitors: [
        {
          monitorId: 'edge',
          monitorName: 'edge',
          lastFailureAt: iso(21, '00:00:01'),
          consecutiveFailures: 1,
        },
      ],
    });
    // 16 durations, sorted: 40 120 140 160 180 200 220 250 | 260 450 500 700 800 900 1000 5000.
    // p50 = 8th = 250; p95 = p99 = 16th = 5000, the maximum (its bucket's middle is above it, so clamped: exact).
    within1Percent(summary.latency.p50DurationMs, 250);
    expect(summary.latency.p95DurationMs).toBe(5000);
    expect(summary.latency.p99DurationMs).toBe(5000);

    const list = await getBody<MonitorMetricsRow[]>(hub, '/metrics/monitors?period=30d');
    expect(list.total).toBe(2);
    expect(list.data.map((row) => row.monitorId)).toEqual(['daily', 'edge']);
    expect(list.data[0]).toMatchObject({
      environment: 'production',
      status: 'degraded',
      successRate: 57.14,
      runCount: 14,
      lastRunAt: iso(31, '09:40:05'),
      lastSuccessAt: iso(31, '09:40:05'),
      lastFailureAt: iso(31, '08:15'),
    });
    within1Percent(list.data[0]!.p50DurationMs, 250);
    within1Percent(list.data[0]!.p95DurationMs, 1000);
    expect(list.data[1]).toMatchObject({
      status: 'failing',
      successRate: 50,
      runCount: 2,
      // Two runs: p95 is the 2nd, 5000 (clamped to the maximum, exact).
      p95DurationMs: 5000,
      lastRunAt: iso(21, '00:00:01'),
      lastSuccessAt: iso(20, '23:59:59'),
      lastFailureAt: iso(21, '00:00:01'),
    });
    within1Percent(list.data[1]!.p50DurationMs, 40);
  });

  it('the day rows hold each UTC day, with the uptime summary of the day', async () => {
    const rows = await hub.db
      .selectFrom('run_rollups_day')
      .select([
        'day',
        'environment',
        'run_count',
        'success_count',
        'failure_count',
        'duration_sum_ms',
        'duration_min_ms',
        'duration_max_ms',
        'first_minute',
        'up_seconds',
        'last_success',
      ])
      .where('monitor_id', '=', 'daily')
      .orderBy('day')
      .orderBy('environment')
      .execute();
    const row = (
      day: number,
      environment: string,
      [runs, successes, failures]: [number, number, number],
      [sum, min, max]: [number, number, number],
      firstMinute: string,
      upSeconds: number,
      lastSuccess: boolean,
    ) => ({
      day: on(day, '00:00'),
      environment,
      run_count: runs,
      success_count: successes,
      failure_count: failures,
      duration_sum_ms: sum,
      duration_min_ms: min,
      duration_max_ms: max,
      first_minute: on(day, firstMinute),
      up_seconds: upSeconds,
      last_success: lastSuccess,
    });
    expect(rows).toEqual([
      // Jan 1: R1, R2 pass from 08:00 until R3 fails at 23:59: 15 h 59 min = 57,540 s.
      row(1, '', [3, 2, 1], [1100, 100, 800], '08:00', 57_540, false),
      row(1, 'production', [3, 2, 1], [1100, 100, 800], '08:00', 57_540, false),
      // Jan 4: R4 (staging) fails at 00:00, R5 passes at 06:00 until the end of the day: 18 h = 64,800 s.
      row(4, '', [2, 1, 1], [750, 250, 500], '00:00', 64_800, true),
      row(4, 'production', [1, 1, 0], [250, 250, 250], '06:00', 64_800, true),
      row(4, 'staging', [1, 0, 1], [500, 500, 500], '00:00', 0, false),
      // Jan 12: R6 fails at 13:45, R7 passes at 14:05 until midnight: 9 h 55 min = 35,700 s.
      row(12, '', [2, 1, 1], [710, 260, 450], '13:45', 35_700, true),
      row(12, 'production', [2, 1, 1], [710, 260, 450], '13:45', 35_700, true),
      // Jan 24: R8 fails at 09:40, R9 passes at 23:59: 60 s.
      row(24, '', [2, 1, 1], [820, 120, 700], '09:40', 60, true),
      row(24, 'production', [2, 1, 1], [820, 120, 700], '09:40', 60, true),
      // Jan 25: R10 fails at 00:00 and holds all day.
      row(25, '', [1, 0, 1], [900, 900, 900], '00:00', 0, false),
      row(25, 'staging', [1, 0, 1], [900, 900, 900], '00:00', 0, false),
      // Jan 28: R11 passes at 10:15 until midnight: 13 h 45 min = 49,500 s.
      row(28, '', [1, 1, 0], [180, 180, 180], '10:15', 49_500, true),
      row(28, 'production', [1, 1, 0], [180, 180, 180], '10:15', 49_500, true),
      // Jan 31 (the current day; its row runs to the end of the day, the reads use its hours instead):
      // up 00:00 -> 08:15 (R13 fails) = 29,700 s and 09:20 -> 24:00 = 52,800 s; 82,500 s.
      row(31, '', [4, 3, 1], [1520, 140, 1000], '00:00', 82_500, true),
      row(31, 'production', [3, 3, 0], [520, 140, 220], '00:00', 86_400, true),
      row(31, 'staging', [1, 0, 1], [1000, 1000, 1000], '08:15', 0, false),
    ]);
  });

  it('the day rows of every environment add up to those of each environment', async () => {
    const rows = await hub.db
      .selectFrom('run_rollups_day')
      .selectAll()
      .where('organization_id', '=', 'acme')
      .orderBy('monitor_id')
      .orderBy('day')
      .execute();
    const byKey = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = `${r.monitor_id} ${r.day.toISOString()}`;
      byKey.set(key, [...(byKey.get(key) ?? []), r]);
    }
    // daily: Jan 1, 4, 12, 24, 25, 28, 31; edge: Jan 20, 21.
    expect(byKey.size).toBe(9);
    for (const [key, group] of byKey) {
      const all = group.find((r) => r.environment === '');
      expect(all, key).toBeDefined();
      expect(group.filter((r) => r.environment !== '').length, key).toBeGreaterThan(0);
      // Counts, durations, first minute, error classes; the histogram key by key (so its total too).
      expectAllEqualsSumOfEach(group, key);
      expect(all!.run_count, key).toBe(all!.success_count + all!.failure_count);
      expect(totalOf(all!.histogram), key).toBe(all!.duration_count);
      expect(totalOf(all!.error_classes), key).toBe(all!.failure_count);
    }
    // In total: daily 15 runs (R1-R15): 3 in staging (R4, R10, R13), 12 in production; edge 2.
    const runsOf = (monitorId: string, environment: string) =>
      rows
        .filter((r) => r.monitor_id === monitorId && r.environment === environment)
        .reduce((t, r) => t + r.run_count, 0);
    expect([runsOf('daily', ''), runsOf('daily', 'production'), runsOf('daily', 'staging')]).toEqual([
      15, 12, 3,
    ]);
    expect(runsOf('edge', '')).toBe(2);
  });
});

describe('planSegments', () => {
  const t = (time: string) => new Date(time);
  const plan = (periodStart: string, end: string) => {
    const start = t(periodStart);
    const fromMinute = new Date(Math.floor(start.getTime() / 60_000) * 60_000);
    return planSegments({ fromMinute, periodStart: start, toMinute: t(end) });
  };
  const minute = (from: string, to: string) => ({ tier: 'minute', from: t(from), to: t(to) });
  const hour = (from: string, to: string) => ({ tier: 'hour', from: t(from), to: t(to) });
  const day = (from: string, to: string) => ({ tier: 'day', from: t(from), to: t(to) });

  it('1h inside an hour: minutes only', () => {
    expect(plan('2026-01-31T09:05:30Z', '2026-01-31T09:55:30Z')).toEqual([
      minute('2026-01-31T09:05:00Z', '2026-01-31T09:55:30Z'),
    ]);
    // A real 1h period off the hour spans two partial hours and no whole one: still minutes only.
    expect(plan('2026-01-31T08:40:30Z', '2026-01-31T09:40:30Z')).toEqual([
      minute('2026-01-31T08:40:00Z', '2026-01-31T09:40:30Z'),
    ]);
  });

  it('24h across midnight: hours, no day', () => {
    expect(plan('2026-01-30T09:40:30Z', '2026-01-31T09:40:30Z')).toEqual([
      minute('2026-01-30T09:40:00Z', '2026-01-30T10:00:00Z'),
      hour('2026-01-30T10:00:00Z', '2026-01-31T09:00:00Z'),
      minute('2026-01-31T09:00:00Z', '2026-01-31T09:40:30Z'),
    ]);
  });

  it('7d off the hour: minutes, hours, days, hours, minutes', () => {
    expect(plan('2026-01-24T09:40:30Z', '2026-01-31T09:40:30Z')).toEqual([
      minute('2026-01-24T09:40:00Z', '2026-01-24T10:00:00Z'),
      hour('2026-01-24T10:00:00Z', '2026-01-25T00:00:00Z'),
      day('2026-01-25T00:00:00Z', '2026-01-31T00:00:00Z'),
      hour('2026-01-31T00:00:00Z', '2026-01-31T09:00:00Z'),
      minute('2026-01-31T09:00:00Z', '2026-01-31T09:40:30Z'),
    ]);
  });

  it('30d at 00:30:30: no hours of the current day before its first hour', () => {
    expect(plan('2026-01-01T00:30:30Z', '2026-01-31T00:30:30Z')).toEqual([
      minute('2026-01-01T00:30:00Z', '2026-01-01T01:00:00Z'),
      hour('2026-01-01T01:00:00Z', '2026-01-02T00:00:00Z'),
      day('2026-01-02T00:00:00Z', '2026-01-31T00:00:00Z'),
      minute('2026-01-31T00:00:00Z', '2026-01-31T00:30:30Z'),
    ]);
  });

  it('an end exactly on the hour keeps the minute of the end', () => {
    expect(plan('2026-01-24T09:00:00Z', '2026-01-31T09:00:00Z')).toEqual([
      hour('2026-01-24T09:00:00Z', '2026-01-25T00:00:00Z'),
      day('2026-01-25T00:00:00Z', '2026-01-31T00:00:00Z'),
      hour('2026-01-31T00:00:00Z', '2026-01-31T09:00:00Z'),
      minute('2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'),
    ]);
    expect(plan('2026-01-31T03:00:00Z', '2026-01-31T09:00:00Z')).toEqual([
      hour('2026-01-31T03:00:00Z', '2026-01-31T09:00:00Z'),
      minute('2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'),
    ]);
  });

  it('an end exactly at midnight: whole days only, then the minute of the end', () => {
    expect(plan('2026-01-02T00:00:00Z', '2026-02-01T00:00:00Z')).toEqual([
      day('2026-01-02T00:00:00Z', '2026-02-01T00:00:00Z'),
      minute('2026-02-01T00:00:00Z', '2026-02-01T00:00:00Z'),
    ]);
    expect(plan('2026-01-30T00:00:00Z', '2026-01-31T00:00:00Z')).toEqual([
      day('2026-01-30T00:00:00Z', '2026-01-31T00:00:00Z'),
      minute('2026-01-31T00:00:00Z', '2026-01-31T00:00:00Z'),
    ]);
  });
});
