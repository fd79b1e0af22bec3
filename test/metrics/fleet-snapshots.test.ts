import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricsSummary, MonitorMetricsRow } from '../../hub/src/metrics/metrics.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, getData, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';

// The fleet endpoints' period figures come from a snapshot that may be 0.2% of the period old (7.2 s for 1h),
// and up to twice that while a refresh runs; status and last-run times are read on every request.
describe('fleet figures from snapshots', () => {
  let clock = NOW.getTime();
  let hub: TestHub;
  let fresh: TestHub;
  const list = (on: TestHub) => getData<MonitorMetricsRow[]>(on, '/metrics/monitors?period=1h');
  const summary = () => getData<MetricsSummary>(hub, '/metrics/summary?period=1h');

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => new Date(clock) } });
    await seedMonitor(hub, 'cached', [
      { at: at('11:30'), success: true, durationMs: 100 },
      { at: at('11:40'), success: true, durationMs: 200 },
    ]);
    fresh = await startTestHub({
      redisUrl: null,
      clock: { now: () => new Date(clock) },
      metricsFleetMaxAgePercent: 0,
    });
    await seedMonitor(fresh, 'uncached', [{ at: at('11:30'), success: true, durationMs: 100 }]);
  });
  afterAll(async () => {
    await Promise.all([hub.close(), fresh.close()]);
  });

  it('shows a new failure at once in the status, and in the counts once the snapshot is refreshed', async () => {
    const before = await list(hub);
    expect(before).toMatchObject([{ monitorId: 'cached', status: 'healthy', runCount: 2, successRate: 100 }]);
    const { periodEnd } = await summary();
    expect(periodEnd).toBe(NOW.toISOString());

    await recordKnownRun(hub.db, 'acme', 'cached', { at: at('11:59'), success: false, durationMs: 300 });
    // The same snapshot: its counts, with the live status and last failure.
    const [row] = await list(hub);
    expect(row).toMatchObject({ status: 'failing', runCount: 2, successRate: 100 });
    expect(row!.lastFailureAt).toBe(at('11:59').toISOString());
    const live = await summary();
    expect(live.periodEnd).toBe(NOW.toISOString());
    expect(live.runs.total).toBe(2);
    expect(live.monitors).toMatchObject({ total: 1, failing: 1 });
    expect(live.failingMonitors).toMatchObject([{ monitorId: 'cached', consecutiveFailures: 1 }]);

    // Twice the allowed age (2 x 7.2 s) later, a request waits for a new snapshot.
    clock += 14_400;
    const [after] = await list(hub);
    expect(after).toMatchObject({ status: 'failing', runCount: 3, successRate: 66.67 });
    expect((await summary()).periodEnd).toBe(new Date(clock).toISOString());
  });

  it('computes on every request when METRICS_FLEET_MAX_AGE_PERCENT is 0', async () => {
    expect(await list(fresh)).toMatchObject([{ monitorId: 'uncached', runCount: 1 }]);
    await recordKnownRun(fresh.db, 'acme', 'uncached', { at: at('11:58'), success: true, durationMs: 100 });
    expect(await list(fresh)).toMatchObject([{ monitorId: 'uncached', runCount: 2 }]);
  });
});
