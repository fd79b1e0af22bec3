import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsService, type MetricsService } from '../../hub/src/metrics/metrics.service.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { registerMonitorHealthMetrics } from '../../hub/src/metrics/prometheus/monitor-health-metrics.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';
import { samplesOf } from './prometheus-samples.js';

// The hub's clock is held at 12:00; the default period (24h) covers every run below.
// steady: passes; flaky: latest passed, 2 of 4 passed; broken: latest failed, 2 of 5 passed; idle: never ran;
// staging-one: passes in staging. globex: down (its only run failed) and 100 monitors that never ran, so the
// collector must export more monitors than one page of the metrics API holds (100 rows).
const GLOBEX_IDLE = 100;

function metricsServiceOf(hub: TestHub): MetricsService {
  return createMetricsService({ db: hub.db, clock: { now: () => NOW }, successThresholdPercent: 99 });
}

/** A hub registry with the monitor health gauges, on a clock the test moves. */
function healthRegistry(hub: TestHub, metrics: Pick<MetricsService, 'rows'> = metricsServiceOf(hub)) {
  const registry = createMetricsRegistry('hub');
  const clock = { ms: 0 };
  registerMonitorHealthMetrics(registry, { db: hub.db, metrics }, () => clock.ms);
  return { clock, scrape: () => registry.metrics() };
}

/** `organization/monitor/environment` -> the status whose series is 1; throws unless exactly one is. */
function statusesOf(scrape: string): Record<string, string> {
  const byMonitor = new Map<string, Array<{ status: string; value: number }>>();
  for (const { labels, value } of samplesOf(scrape, 'meerkat_monitor_health')) {
    const key = `${labels.organization}/${labels.monitor}/${labels.environment}`;
    byMonitor.set(key, [...(byMonitor.get(key) ?? []), { status: labels.status!, value }]);
  }
  return Object.fromEntries(
    [...byMonitor].map(([key, series]) => {
      expect(series.map((s) => s.status).sort(), key).toEqual(['degraded', 'failing', 'healthy']);
      const current = series.filter((s) => s.value === 1);
      expect(current, key).toHaveLength(1);
      expect(
        series.filter((s) => s.value !== 0 && s.value !== 1),
        key,
      ).toEqual([]);
      return [key, current[0]!.status];
    }),
  );
}

describe('meerkat_monitor_health and meerkat_monitor_success_ratio over known runs', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await seedMonitor(hub, 'steady', [{ at: at('11:05'), success: true, durationMs: 100 }]);
    await seedMonitor(hub, 'flaky', [
      { at: at('10:30'), success: false, durationMs: 200, errorClass: 'connection' },
      { at: at('11:15'), success: true, durationMs: 200 },
      { at: at('11:30'), success: false, durationMs: 200, errorClass: 'assertion' },
      { at: at('11:45'), success: true, durationMs: 200 },
    ]);
    await seedMonitor(hub, 'broken', [
      { at: at('10:00'), success: true, durationMs: 300 },
      { at: at('11:10'), success: true, durationMs: 300 },
      { at: at('11:20'), success: false, durationMs: 300, errorClass: 'timeout' },
      { at: at('11:40'), success: false, durationMs: 300, errorClass: 'connection' },
      { at: at('11:50'), success: false, durationMs: 300, errorClass: 'dns' },
    ]);
    await seedMonitor(hub, 'idle', []);
    await seedMonitor(
      hub,
      'staging-one',
      [{ at: at('11:30'), success: true, durationMs: 50, environment: 'staging' }],
      { environment: 'staging' },
    );
    await seedMonitor(hub, 'globex-down', [{ at: at('11:30'), success: false, durationMs: 10 }], {
      organization: 'globex',
    });
    const idleIds = Array.from(
      { length: GLOBEX_IDLE },
      (_, i) => `globex-idle-${String(i).padStart(3, '0')}`,
    );
    for (let i = 0; i < idleIds.length; i += 20)
      await Promise.all(
        idleIds.slice(i, i + 20).map((id) => seedMonitor(hub, id, [], { organization: 'globex' })),
      );
  });
  afterAll(async () => {
    await hub.close();
  });

  it('reports every monitor of every organization once, 1 for its status and 0 for the other two', async () => {
    const statuses = statusesOf(await healthRegistry(hub).scrape());
    expect(Object.keys(statuses)).toHaveLength(5 + 1 + GLOBEX_IDLE);
    expect(statuses).toMatchObject({
      'acme/steady/production': 'healthy',
      'acme/flaky/production': 'degraded',
      'acme/broken/production': 'failing',
      'acme/idle/production': 'degraded',
      'acme/staging-one/staging': 'healthy',
      'globex/globex-down/production': 'failing',
      'globex/globex-idle-000/production': 'degraded',
      'globex/globex-idle-099/production': 'degraded',
    });
  });

  it('exports the 24h success ratio of the monitors that ran, and none for a monitor that never ran', async () => {
    const ratios = samplesOf(await healthRegistry(hub).scrape(), 'meerkat_monitor_success_ratio').map(
      ({ labels, value }) => [`${labels.organization}/${labels.monitor}`, value],
    );
    expect(Object.fromEntries(ratios)).toEqual({
      'acme/steady': 1,
      'acme/flaky': 0.5,
      'acme/broken': 0.4,
      'acme/staging-one': 1,
      'globex/globex-down': 0,
    });
  });

  it('labels each series with the hub process and nothing unbounded', async () => {
    const scrape = await healthRegistry(hub).scrape();
    const labelNames = new Set(
      ['meerkat_monitor_health', 'meerkat_monitor_success_ratio'].flatMap((name) =>
        samplesOf(scrape, name).flatMap((s) => Object.keys(s.labels)),
      ),
    );
    expect([...labelNames].sort()).toEqual(['environment', 'monitor', 'organization', 'process', 'status']);
    expect(samplesOf(scrape, 'meerkat_monitor_health').every((s) => s.labels.process === 'hub')).toBe(true);
  });
});

describe('how often meerkat_monitor_health reads the database', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await seedMonitor(hub, 'turning', [{ at: at('11:30'), success: true, durationMs: 100 }]);
  });
  afterAll(async () => {
    await hub.close();
  });

  it('serves the same figures for 30 s however often it is scraped, then reads them afresh', async () => {
    const { clock, scrape } = healthRegistry(hub);
    expect(statusesOf(await scrape())).toEqual({ 'acme/turning/production': 'healthy' });
    await recordKnownRun(hub.db, 'acme', 'turning', { at: at('11:40'), success: false, durationMs: 100 });
    for (const ms of [0, 1, 15_000, 29_999]) {
      clock.ms = ms;
      expect(statusesOf(await scrape())).toEqual({ 'acme/turning/production': 'healthy' });
    }
    clock.ms = 30_000;
    expect(statusesOf(await scrape())).toEqual({ 'acme/turning/production': 'failing' });
  });

  it('scrapes with the last figures read while reads fail, none before the first, and reads again', async () => {
    const real = metricsServiceOf(hub);
    let failing = true;
    const { clock, scrape } = healthRegistry(hub, {
      rows: (organizationId, query) =>
        failing ? Promise.reject(new Error('database unavailable')) : real.rows(organizationId, query),
    });
    // The scrape itself never fails (docs/operations.md): a gauge never read is left out.
    expect(statusesOf(await scrape())).toEqual({});
    failing = false;
    const read = statusesOf(await scrape());
    expect(Object.keys(read)).toEqual(['acme/turning/production']);
    failing = true;
    clock.ms = 30_000;
    expect(statusesOf(await scrape())).toEqual(read);
  });
});
