import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MetricsSummary,
  MonitorMetrics,
  MonitorMetricsRow,
} from '../../hub/src/metrics/metrics.schema.js';
import { createMetricsService } from '../../hub/src/metrics/metrics.service.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  at,
  getBody,
  getData,
  NOW,
  recordKnownRun,
  seedMonitor,
  within1Percent,
} from './metrics-fixtures.js';

// Every expected figure below is worked out by hand from these runs, with the hub's clock held at 12:00.
// steady:  10 successes at 11:05, 11:10, ... 11:50 taking 100, 200, ... 1000 ms.
// flaky:   a failure at 10:30 (before the 1h period), then 11:15 pass, 11:30 assertion failure, 11:45 pass.
// broken:  a pass at 10:00, then 11:10 pass, 11:20 timeout, 11:40 connection, 11:50 dns failures.
// idle:    never ran.  staging-one (environment staging): one pass at 11:30 taking 50 ms.
const hundreds = Array.from({ length: 10 }, (_, i) => ({
  at: at(`11:${String(5 + i * 5).padStart(2, '0')}`),
  success: true,
  durationMs: (i + 1) * 100,
}));

interface Body<T> {
  data: T;
  total?: number;
}

describe('metrics endpoints over known runs', () => {
  let hub: TestHub;
  let flakyFailureId = '';
  const get = async <T>(path: string, as: 'acmeViewer' | 'globexAdmin' = 'acmeViewer') => {
    const res = await hub.request('GET', path, { as });
    return { status: res.status, body: (await res.json()) as Body<T> };
  };

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await seedMonitor(hub, 'steady', hundreds);
    const flaky = await seedMonitor(hub, 'flaky', [
      { at: at('10:30'), success: false, durationMs: 2000, errorClass: 'connection' },
      { at: at('11:15'), success: true, durationMs: 2000 },
      { at: at('11:30'), success: false, durationMs: 2000, errorClass: 'assertion' },
      { at: at('11:45'), success: true, durationMs: 2000 },
    ]);
    flakyFailureId = flaky[2]!;
    await seedMonitor(hub, 'broken', [
      { at: at('10:00'), success: true, durationMs: 3000 },
      { at: at('11:10'), success: true, durationMs: 3000 },
      { at: at('11:20'), success: false, durationMs: 3000, errorClass: 'timeout' },
      { at: at('11:40'), success: false, durationMs: 3000, errorClass: 'connection' },
      { at: at('11:50'), success: false, durationMs: 3000, errorClass: 'dns' },
    ]);
    await seedMonitor(hub, 'idle', []);
    await seedMonitor(
      hub,
      'staging-one',
      [{ at: at('11:30'), success: true, durationMs: 50, environment: 'staging' }],
      {
        environment: 'staging',
      },
    );
    await seedMonitor(
      hub,
      'globex-down',
      [{ at: at('11:30'), success: false, durationMs: 10, errorClass: 'dns' }],
      {
        organization: 'globex',
      },
    );
  });
  afterAll(async () => {
    await hub.close();
  });

  it('a healthy monitor reports its counts, latency percentiles within 1% and full uptime', async () => {
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/steady?period=1h');
    expect(m).toMatchObject({
      monitorId: 'steady',
      monitorName: 'steady',
      environment: 'production',
      period: '1h',
      periodStart: '2026-01-10T11:00:00.000Z',
      periodEnd: '2026-01-10T12:00:00.000Z',
      status: 'healthy',
      runs: { total: 10, successful: 10, failed: 0, successRate: 100 },
      uptimePercent: 100,
      recentFailures: [],
      errorDistribution: {},
      lastRun: {
        status: 'completed',
        success: true,
        startedAt: '2026-01-10T11:50:00.000Z',
        durationMs: 1000,
      },
    });
    expect(m.latency).toMatchObject({ minDurationMs: 100, avgDurationMs: 550, maxDurationMs: 1000 });
    // Nearest rank: p50 is the 5th of 10 (500 ms); p95 and p99 are the 10th (1000 ms).
    within1Percent(m.latency.p50DurationMs, 500);
    within1Percent(m.latency.p95DurationMs, 1000);
    within1Percent(m.latency.p99DurationMs, 1000);
  });

  it('a monitor whose latest run passed below the success threshold is degraded, with time-weighted uptime', async () => {
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/flaky?period=1h');
    expect(m.status).toBe('degraded');
    expect(m.runs).toEqual({ total: 3, successful: 2, failed: 1, successRate: 66.67 });
    // Down 11:00-11:15 (the 10:30 failure carries over), up 11:15-11:30, down 11:30-11:45, up 11:45-12:00.
    expect(m.uptimePercent).toBe(50);
    expect(m.errorDistribution).toEqual({ assertion: 1 });
    expect(m.recentFailures).toEqual([
      { id: flakyFailureId, startedAt: '2026-01-10T11:30:00.000Z', errors: ['get: assertion failure'] },
    ]);
  });

  it('a monitor whose latest run failed is failing, counting each failed run under its error class', async () => {
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/broken?period=1h');
    expect(m.status).toBe('failing');
    expect(m.runs).toEqual({ total: 4, successful: 1, failed: 3, successRate: 25 });
    expect(m.errorDistribution).toEqual({ timeout: 1, connection: 1, dns: 1 });
    // Up from the 10:00 pass until the 11:20 failure: 20 of 60 minutes.
    expect(m.uptimePercent).toBe(33.33);
    expect(m.recentFailures.map((f) => f.startedAt)).toEqual([
      '2026-01-10T11:50:00.000Z',
      '2026-01-10T11:40:00.000Z',
      '2026-01-10T11:20:00.000Z',
    ]);
  });

  it('the 24h period reaches back to runs the 1h period leaves out', async () => {
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/flaky?period=24h');
    expect(m.runs).toEqual({ total: 4, successful: 2, failed: 2, successRate: 50 });
    expect(m.errorDistribution).toEqual({ connection: 1, assertion: 1 });
  });

  it('a monitor without runs is degraded with zero figures, no known time and no last run', async () => {
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/idle');
    // No known time: knownSeconds 0 says no data; uptime stays the contract's number, 0 as before.
    expect(m).toMatchObject({
      status: 'degraded',
      period: '24h',
      uptimePercent: 0,
      knownSeconds: 0,
      lastRun: null,
    });
    expect(m.runs).toEqual({ total: 0, successful: 0, failed: 0, successRate: 0 });
    expect(m.latency.p95DurationMs).toBe(0);
  });

  it('a lower success threshold makes the flaky monitor healthy', async () => {
    const lenient = createMetricsService({
      db: hub.db,
      clock: { now: () => NOW },
      successThresholdPercent: 60,
    });
    expect((await lenient.monitor('acme', 'flaky', { period: '1h' })).status).toBe('healthy');
  });

  it('the summary counts monitors, runs, fleet percentiles, mean uptime and failing streaks', async () => {
    const s = await getData<MetricsSummary>(hub, '/metrics/summary?period=1h');
    // No recent runs: idle never ran; flaky's last run (11:45) and staging-one's (11:30) are more than twice
    // their 5-minute frequency before 12:00 (issue 23: a monitor that stopped running is not passing).
    // Passing: steady (11:50). Failing: broken, whatever its last run's age.
    expect(s.monitors).toEqual({ total: 5, passing: 1, failing: 1, noRecentRuns: 3 });
    expect(s.runs).toEqual({ total: 18, successful: 14, failed: 4, successRate: 77.78 });
    // 18 durations: 50, 100..1000, 2000 x3, 3000 x4; the 9th is 800, the 18th 3000.
    within1Percent(s.latency.p50DurationMs, 800);
    within1Percent(s.latency.p95DurationMs, 3000);
    within1Percent(s.latency.p99DurationMs, 3000);
    // (100 + 50 + 33.33 + 100) / 4 over the monitors that ran.
    expect(s.uptimePercent).toBe(70.83);
    expect(s.failingMonitors).toEqual([
      {
        monitorId: 'broken',
        monitorName: 'broken',
        lastFailureAt: '2026-01-10T11:50:00.000Z',
        consecutiveFailures: 3,
      },
    ]);
  });

  it('the summary of an environment counts only its monitors', async () => {
    const s = await getData<MetricsSummary>(hub, '/metrics/summary?period=1h&environment=staging');
    // staging-one last ran at 11:30: more than twice its 5-minute frequency before 12:00.
    expect(s.monitors).toEqual({ total: 1, passing: 0, failing: 0, noRecentRuns: 1 });
    expect(s.runs.total).toBe(1);
  });

  it('lists rows sorted by name by default, with their last run times', async () => {
    const body = await getBody<MonitorMetricsRow[]>(hub, '/metrics/monitors?period=1h');
    expect(body.data.map((r) => r.monitorId)).toEqual(['broken', 'flaky', 'idle', 'staging-one', 'steady']);
    expect(body.total).toBe(5);
    expect(body.data[0]).toMatchObject({
      status: 'failing',
      successRate: 25,
      runCount: 4,
      lastRunAt: '2026-01-10T11:50:00.000Z',
      lastRunSuccess: false,
      lastSuccessAt: '2026-01-10T11:10:00.000Z',
      lastFailureAt: '2026-01-10T11:50:00.000Z',
    });
    within1Percent(body.data[0]!.p95DurationMs, 3000);
    expect(body.data[2]).toMatchObject({
      lastRunAt: null,
      lastRunSuccess: null,
      lastRunId: null,
      lastRunDurationMs: null,
      lastSuccessAt: null,
      lastFailureAt: null,
    });
  });

  it('a row names its latest run, id and duration, as the monitor’s own metrics do (ADR 0073)', async () => {
    const rows = await getData<MonitorMetricsRow[]>(hub, '/metrics/monitors?period=1h');
    for (const row of rows.filter((each) => each.lastRunAt !== null)) {
      const own = await getData<MonitorMetrics>(hub, `/metrics/monitors/${row.monitorId}?period=1h`);
      expect(own.lastRun).not.toBeNull();
      expect(row).toMatchObject({ lastRunId: own.lastRun!.id, lastRunDurationMs: own.lastRun!.durationMs });
      expect(row.lastRunId).toMatch(/^run_/);
    }
    expect(rows.filter((each) => each.lastRunId !== null)).toHaveLength(4);
  });

  it('sorts by any column either way, ties by name', async () => {
    const ids = async (query: string) =>
      (await getData<Array<{ monitorId: string }>>(hub, `/metrics/monitors?period=1h&${query}`)).map(
        (r) => r.monitorId,
      );
    expect(await ids('sort=run_count&order=desc')).toEqual([
      'steady',
      'broken',
      'flaky',
      'staging-one',
      'idle',
    ]);
    expect(await ids('sort=success_rate&order=desc')).toEqual([
      'staging-one',
      'steady',
      'flaky',
      'broken',
      'idle',
    ]);
    expect(await ids('sort=p95_duration_ms')).toEqual(['idle', 'staging-one', 'steady', 'flaky', 'broken']);
  });

  it('filters by status and environment and pages with limit and offset', async () => {
    const page = await get<Array<{ monitorId: string }>>('/metrics/monitors?period=1h&limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.body.data.map((r) => r.monitorId)).toEqual(['flaky', 'idle']);
    const degraded = await get<Array<{ monitorId: string }>>('/metrics/monitors?period=1h&status=degraded');
    expect(degraded.body.data.map((r) => r.monitorId)).toEqual(['flaky', 'idle']);
    const staging = await get<Array<{ monitorId: string }>>('/metrics/monitors?environment=staging');
    expect(staging.body.data.map((r) => r.monitorId)).toEqual(['staging-one']);
    const beyond = await get<unknown[]>('/metrics/monitors?offset=10');
    expect(beyond.body).toMatchObject({ data: [], total: 5 });
  });

  it.each([
    '/metrics/monitors?limit=0',
    '/metrics/monitors?limit=101',
    '/metrics/monitors?offset=-1',
    '/metrics/monitors?sort=latency',
    '/metrics/monitors?order=up',
    '/metrics/monitors?status=ok',
    '/metrics/summary?period=2h',
    '/metrics/monitors/steady?bogus=1',
  ])('refuses %s with 400', async (path) => {
    const { status, body } = await get<unknown>(path);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'validation_failed' });
  });

  it('keeps organizations apart', async () => {
    expect((await get('/metrics/monitors/steady', 'globexAdmin')).status).toBe(404);
    expect((await get('/metrics/monitors/globex-down')).status).toBe(404);
    const globex = await getData<MetricsSummary>(hub, '/metrics/summary?period=1h', 'globexAdmin');
    expect(globex.monitors).toEqual({ total: 1, passing: 0, failing: 1, noRecentRuns: 0 });
    expect(globex.runs.total).toBe(1);
  });

  it('of two locations running in one minute, the later result holds for uptime', async () => {
    await seedMonitor(hub, 'two-places', [
      { at: new Date('2026-01-10T11:00:40Z'), success: true, durationMs: 10, location: 'eu-west' },
      { at: new Date('2026-01-10T11:00:10Z'), success: false, durationMs: 10, location: 'default' },
    ]);
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/two-places?period=1h');
    expect(m.uptimePercent).toBe(100);
    expect(m.status).toBe('degraded');
    await hub.request('DELETE', '/monitor/two-places', { as: 'acmeAdmin' });
  });

  it('counts a run once even when its result is recorded twice', async () => {
    await seedMonitor(hub, 'twice', []);
    const runId = await recordKnownRun(hub.db, 'acme', 'twice', {
      at: at('11:55'),
      success: true,
      durationMs: 10,
    });
    const { recordRunResult } = await import('../../hub/src/runs/run-finished.js');
    const { rollupHook } = await import('../../hub/src/metrics/rollup-hook.js');
    const again = await recordRunResult(
      hub.db,
      { organization_id: 'acme', id: runId },
      { success: false, errors: ['late'], steps: null, completedAt: NOW, durationMs: 5 },
      [rollupHook],
    );
    expect(again).toBeUndefined();
    const m = await getData<MonitorMetrics>(hub, '/metrics/monitors/twice?period=1h');
    expect(m.runs).toEqual({ total: 1, successful: 1, failed: 0, successRate: 100 });
    await hub.request('DELETE', '/monitor/twice', { as: 'acmeAdmin' });
  });
});
