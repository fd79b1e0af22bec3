import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorMetrics } from '../../hub/src/metrics/metrics.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { getData, seedMonitor } from './metrics-fixtures.js';

// Periods longer than two hours read whole hours from the hourly tier and minutes only at the edges; these
// figures are worked out by hand from the minute definitions, with the clock held off the hour (12:30:30).
// hours (environment production): Jan 8 12:00 fail (400 ms); Jan 10 09:50 pass (100 ms), 10:10 fail (200 ms),
// 10:40 pass in eu-west (300 ms), 11:20 fail in environment staging (500 ms), 12:10 pass (600 ms).
const NOW = new Date('2026-01-10T12:30:30Z');
const on = (day: number, time: string) => new Date(`2026-01-${String(day).padStart(2, '0')}T${time}:00Z`);

describe('figures read from the hourly rollup tier', () => {
  let hub: TestHub;
  const monitor = (query: string) => getData<MonitorMetrics>(hub, `/metrics/monitors/hours?${query}`);

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    await seedMonitor(hub, 'hours', [
      { at: on(8, '12:00'), success: false, durationMs: 400, errorClass: 'timeout' },
      { at: on(10, '09:50'), success: true, durationMs: 100 },
      { at: on(10, '10:10'), success: false, durationMs: 200, errorClass: 'http' },
      { at: on(10, '10:40'), success: true, durationMs: 300, location: 'eu-west' },
      { at: on(10, '11:20'), success: false, durationMs: 500, errorClass: 'dns', environment: 'staging' },
      // Recorded out of order: the hour rows are recomputed from their minutes, whatever the order.
      { at: on(10, '12:10'), success: true, durationMs: 600 },
    ]);
  });
  afterAll(async () => {
    await hub.close();
  });

  it('6h: counts, exact min/avg/max and uptime carried across hours from the earlier result', async () => {
    const m = await monitor('period=6h');
    expect(m.runs).toEqual({ total: 5, successful: 3, failed: 2, successRate: 60 });
    expect(m.latency).toMatchObject({ minDurationMs: 100, avgDurationMs: 340, maxDurationMs: 600 });
    expect(m.errorDistribution).toEqual({ http: 1, dns: 1 });
    // The Jan 8 failure holds from 06:30:30; up 09:50-10:10, 10:40-11:20 and 12:10-12:30:30:
    // 1,200 + 2,400 + 1,230 = 4,830 s of 21,600 -> 22.36%.
    expect(m.uptimePercent).toBe(22.36);
    expect(m.status).toBe('degraded');
  });

  it('an environment reads its own hour rows', async () => {
    const m = await monitor('period=6h&environment=production');
    expect(m.runs).toEqual({ total: 4, successful: 3, failed: 1, successRate: 75 });
    // Without the staging failure: up 09:50-10:10, 10:40-12:30:30 = 1,200 + 6,630 = 7,830 of 21,600 s -> 36.25%.
    expect(m.uptimePercent).toBe(36.25);
    // Staging has no earlier result: only 11:20-12:30:30 counts, all of it down.
    const staging = await monitor('period=6h&environment=staging');
    expect(staging.runs.total).toBe(1);
    expect(staging.uptimePercent).toBe(0);
  });

  it('24h starts in the failure recorded two days before', async () => {
    const m = await monitor('period=24h');
    expect(m.runs.total).toBe(5);
    // The Jan 8 failure holds from the period's start; up 4,830 s of 86,400 -> 5.59%.
    expect(m.uptimePercent).toBe(5.59);
  });

  it('7d and 30d reach the earlier failure and give the same figures', async () => {
    const week = await monitor('period=7d');
    expect(week.runs).toEqual({ total: 6, successful: 3, failed: 3, successRate: 50 });
    expect(week.latency).toMatchObject({ minDurationMs: 100, avgDurationMs: 350, maxDurationMs: 600 });
    expect(week.errorDistribution).toEqual({ timeout: 1, http: 1, dns: 1 });
    // From Jan 8 12:00 to Jan 10 12:30:30 is 174,630 s, of which 4,830 up -> 2.77%.
    expect(week.uptimePercent).toBe(2.77);
    const month = await monitor('period=30d');
    expect({ ...month, period: '7d', periodStart: week.periodStart }).toEqual(week);
  });

  it('the hour rows of every environment add up to those of each environment', async () => {
    const rows = await hub.db
      .selectFrom('run_rollups_hour')
      .select(['environment', (eb) => eb.fn.sum<number>('run_count').as('runs')])
      .where('monitor_id', '=', 'hours')
      .groupBy('environment')
      .orderBy('environment')
      .execute();
    expect(rows.map((r) => [r.environment, Number(r.runs)])).toEqual([
      ['', 6],
      ['production', 5],
      ['staging', 1],
    ]);
  });
});
