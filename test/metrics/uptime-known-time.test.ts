import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UptimeDay } from '../../hub/src/contract/console.js';
import { recordGaps } from '../../hub/src/ledger/slot-gap.repository.js';
import { foldGapsIntoRollups } from '../../hub/src/metrics/gap-markers.repository.js';
import type { MetricsSummary, MonitorMetrics } from '../../hub/src/metrics/metrics.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { getData, recordKnownRun, seedMonitor, type KnownRun } from './metrics-fixtures.js';

// Uptime over known time only (docs/adr/0048-uptime-counts-known-time.md), on real PostgreSQL (or PGlite), through
// the real run-result path and the real ledger's gap writes. The clock is held at 14:30 on Jan 10; each monitor's
// day has runs every 5 minutes from 11:30 to 12:25, a gap of 3 slots (11:45, 11:50, 11:55) and a last gap at 12:30,
// so its known time is 11:30-11:45 and 12:00-12:30: 2,700 s. Figures are worked out by hand.
const NOW = new Date('2026-01-10T14:30:00Z');
const on = (day: number, time: string) => new Date(`2026-01-${String(day).padStart(2, '0')}T${time}:00Z`);
const KNOWN = 2_700;
const GAP_SLOTS = ['11:45', '11:50', '11:55'];
const PASSES_AFTER_GAP = ['12:00', '12:05', '12:15', '12:20', '12:25'];

describe('uptime counts known time only', () => {
  let hub: TestHub;
  const monitor = (id: string, query: string) =>
    getData<MonitorMetrics>(hub, `/metrics/monitors/${id}?${query}`);
  const run = (day: number, time: string, success = true): KnownRun => ({
    at: on(day, time),
    success,
    durationMs: 100,
    ...(success ? {} : { errorClass: 'http' }),
  });
  const gaps = async (id: string, day: number, times: string[]) => {
    await recordGaps(
      hub.db,
      times.map((time) => ({
        organizationId: 'acme',
        monitorId: id,
        location: 'default',
        slotMs: on(day, time).getTime(),
        reason: 'skipped_worker_lost' as const,
      })),
    );
    while ((await foldGapsIntoRollups(hub.db, 2)) > 0);
  };
  const record = async (id: string, runs: KnownRun[]) => {
    for (const r of runs) await recordKnownRun(hub.db, 'acme', id, r);
  };

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    // Gaps folded as they happen, before the runs after them are recorded (the hour rows are added to).
    await seedMonitor(hub, 'today', [run(10, '11:30'), run(10, '11:35'), run(10, '11:40')]);
    await gaps('today', 10, GAP_SLOTS);
    await record('today', [...PASSES_AFTER_GAP.map((t) => run(10, t)), run(10, '12:10', false)]);
    await gaps('today', 10, ['12:30']);
    // A failure and then a gap; every gap folded only after the later runs (the hour rows are recomputed).
    await seedMonitor(hub, 'fails-then-gap', [
      run(10, '11:30'),
      run(10, '11:35', false),
      run(10, '11:40', false),
      ...PASSES_AFTER_GAP.map((t) => run(10, t)),
      run(10, '12:10'),
    ]);
    await gaps('fails-then-gap', 10, [...GAP_SLOTS, '12:30']);
    // The same day as 'today', two days earlier: read from the day tier by 7d.
    await seedMonitor(hub, 'days-ago', [
      ...['11:30', '11:35', '11:40', ...PASSES_AFTER_GAP].map((t) => run(8, t)),
      run(8, '12:10', false),
    ]);
    await gaps('days-ago', 8, [...GAP_SLOTS, '12:30']);
    await seedMonitor(hub, 'never-ran', []);
    await seedMonitor(hub, 'only-gaps', []);
    await gaps('only-gaps', 10, ['14:00', '14:05']);
  });
  afterAll(async () => {
    await hub.close();
  });

  it('a gap is neither up nor down: uptime is the passing share of the known time', async () => {
    // Down 12:10-12:15 only: 2,400 of 2,700 known seconds. Counting the gap as the result before it would say 91.67.
    const m = await monitor('today', 'period=6h');
    expect(m.runs).toMatchObject({ total: 9, successful: 8, failed: 1 });
    expect(m.knownSeconds).toBe(KNOWN);
    expect(m.uptimePercent).toBe(88.89);
    // 24h reads the same hours from the hour rows: the same figures.
    expect(await monitor('today', 'period=24h')).toMatchObject({ knownSeconds: KNOWN, uptimePercent: 88.89 });
  });

  it('a failure followed by a gap does not count the gap as down', async () => {
    // Up 11:30-11:35 and 12:00-12:30: 2,100 of 2,700 s (the failure at 11:40 holds until the gap at 11:45).
    const m = await monitor('fails-then-gap', 'period=6h');
    expect(m).toMatchObject({ knownSeconds: KNOWN, uptimePercent: 77.78 });
  });

  it('no known time is no data: knownSeconds 0, uptime 0 as the contract types it a number', async () => {
    // The last event before the last hour is the 12:30 gap: nothing of 13:30-14:30 is known.
    expect(await monitor('today', 'period=1h')).toMatchObject({ knownSeconds: 0, uptimePercent: 0 });
    expect(await monitor('never-ran', 'period=24h')).toMatchObject({ knownSeconds: 0, uptimePercent: 0 });
    expect(await monitor('only-gaps', 'period=1h')).toMatchObject({ knownSeconds: 0, uptimePercent: 0 });
    const summary = await getData<MetricsSummary>(hub, '/metrics/summary?period=1h');
    expect(summary).toMatchObject({ uptimePercent: 0, knownSeconds: 0 });
  });

  it('the day tier keeps the known time: 7d and the console day bars', async () => {
    expect(await monitor('days-ago', 'period=7d')).toMatchObject({
      knownSeconds: KNOWN,
      uptimePercent: 88.89,
    });
    const days = await getData<UptimeDay[]>(hub, '/metrics/monitors/days-ago/uptime-days?days=3');
    expect(days.find((d) => d.day === '2026-01-08')).toMatchObject({
      knownSeconds: KNOWN,
      uptimePercent: 88.89,
    });
    // Today's row is cut at now; its last event is a gap, so nothing after 12:30 counts.
    const today = await getData<UptimeDay[]>(hub, '/metrics/monitors/today/uptime-days?days=1');
    expect(today).toMatchObject([{ day: '2026-01-10', knownSeconds: KNOWN, uptimePercent: 88.89 }]);
  });

  it('the figures stay once the runs, the gaps and the minute rollups are gone', async () => {
    await sql`delete from run_rollups_minute where minute < ${on(10, '13:00')}`.execute(hub.db);
    await sql`delete from slot_gaps`.execute(hub.db);
    await sql`delete from runs`.execute(hub.db);
    expect(await monitor('today', 'period=24h')).toMatchObject({ knownSeconds: KNOWN, uptimePercent: 88.89 });
    expect(await monitor('fails-then-gap', 'period=24h')).toMatchObject({
      knownSeconds: KNOWN,
      uptimePercent: 77.78,
    });
    expect(await monitor('days-ago', 'period=7d')).toMatchObject({
      knownSeconds: KNOWN,
      uptimePercent: 88.89,
    });
  });
});
