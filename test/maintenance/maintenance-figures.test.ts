import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorMetrics, MonitorMetricsRow } from '../../hub/src/metrics/metrics.schema.js';
import { createMetricsService } from '../../hub/src/metrics/metrics.service.js';
import { registerMonitorHealthMetrics } from '../../hub/src/metrics/prometheus/monitor-health-metrics.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, getData, NOW, seedMonitor, type KnownRun } from '../metrics/metrics-fixtures.js';
import { samplesOf } from '../metrics/prometheus-samples.js';

// 10:30 passes; 11:10 and 11:20 fail inside the window 11:00 to 11:30; 11:40 passes. The clock is at 12:00, or
// at 11:15 to look at the figures while the window is in force.
const runs: KnownRun[] = [
  { at: at('10:30'), success: true, durationMs: 100 },
  { at: at('11:10'), success: false, durationMs: 900, errorClass: 'connection' },
  { at: at('11:20'), success: false, durationMs: 900, errorClass: 'connection' },
  { at: at('11:40'), success: true, durationMs: 100 },
];

const windowOver = (name: string, monitor: string, excludeFromFigures?: boolean) => ({
  name,
  matchers: [{ label: 'monitor', values: [monitor] }],
  schedule: { type: 'once', startsAt: '2026-01-10T11:00:00Z', endsAt: '2026-01-10T11:30:00Z' },
  ...(excludeFromFigures === undefined ? {} : { excludeFromFigures }),
});

describe('figures of monitors in maintenance', () => {
  let hub: TestHub;
  let now = NOW;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => now } });
    for (const [name, monitor, exclude] of [
      ['patching', 'patched', undefined],
      ['counted-patching', 'counted', false],
    ] as const) {
      const put = await hub.request('PUT', `/maintenance-windows/${name}`, {
        as: 'acmeEditor',
        body: windowOver(name, monitor, exclude),
      });
      expect(put.status).toBe(201);
    }
    await seedMonitor(hub, 'patched', runs);
    await seedMonitor(hub, 'counted', runs);
    await seedMonitor(hub, 'elsewhere', runs);
  });
  afterAll(() => hub.close());

  it('runs inside an excluding window count in no run, success-rate or latency figure; uptime carries across it', async () => {
    now = NOW;
    const patched = await getData<MonitorMetrics>(hub, '/metrics/monitors/patched?period=24h');
    expect(patched.runs).toEqual({ total: 2, successful: 2, failed: 0, successRate: 100 });
    expect(patched.latency.maxDurationMs).toBe(100);
    expect(patched.uptimePercent).toBe(100);
    expect(patched.maintenance).toBeNull();
    // A window that says so keeps its runs in the figures.
    const counted = await getData<MonitorMetrics>(hub, '/metrics/monitors/counted?period=24h');
    expect(counted.runs).toEqual({ total: 4, successful: 2, failed: 2, successRate: 50 });
    expect(counted.uptimePercent).toBeLessThan(100);
  });

  it('the metrics API and meerkat_monitor_in_maintenance show the window while it is in force', async () => {
    now = new Date('2026-01-10T11:15:00Z');
    const patched = await getData<MonitorMetrics>(hub, '/metrics/monitors/patched?period=24h');
    expect(patched.maintenance).toMatchObject({
      name: 'patching',
      start: '2026-01-10T11:00:00.000Z',
      end: '2026-01-10T11:30:00.000Z',
      excludeFromFigures: true,
    });
    const rows = await getData<MonitorMetricsRow[]>(hub, '/metrics/monitors?period=24h');
    expect(Object.fromEntries(rows.map((row) => [row.monitorName, row.maintenance?.name ?? null]))).toEqual({
      counted: 'counted-patching',
      elsewhere: null,
      patched: 'patching',
    });

    const registry = createMetricsRegistry('hub');
    const metrics = createMetricsService({
      db: hub.db,
      clock: { now: () => now },
      successThresholdPercent: 99,
    });
    registerMonitorHealthMetrics(registry, { db: hub.db, metrics });
    const samples = samplesOf(await registry.metrics(), 'meerkat_monitor_in_maintenance');
    expect(
      Object.fromEntries(samples.map(({ labels, value }) => [labels.monitor, [labels.window, value]])),
    ).toEqual({ patched: ['patching', 1], counted: ['counted-patching', 1], elsewhere: ['', 0] });
  });
});
