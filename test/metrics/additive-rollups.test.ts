import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshDayRollups } from '../../hub/src/metrics/day-rollup.repository.js';
import { refreshHourRollups } from '../../hub/src/metrics/hour-rollup.repository.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { recordKnownRun, seedMonitor, type KnownRun } from './metrics-fixtures.js';

// The hour and day rows are added to as results arrive (docs/adr/0022-batched-run-writes.md); a result older
// than its row's last minute makes the row be recomputed from the finer tier instead. Whatever order results
// land in, the rows must be exactly what recomputing them from their minutes gives. Two monitors get the same
// results: one in time order (every result is added), one shuffled (many are late), each in its own
// transaction through the real run-result path; then their rows are compared with a recomputation.

/** A small deterministic generator, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * below);
  };
}

const random = generator(24);
const LOCATIONS = ['default', 'eu-west', 'us-east'];
const CLASSES = ['timeout', 'dns', 'http', 'assertion'];
// 90 results over three hours across a midnight (Jan 4 23:00 to Jan 5 01:59), several sharing a minute.
const start = Date.parse('2026-01-04T23:00:00Z');
const results: KnownRun[] = Array.from({ length: 90 }, () => {
  const success = random(10) < 7;
  return {
    at: new Date(start + random(180) * 60_000 + random(60) * 1_000),
    success,
    durationMs: 50 + random(450),
    ...(success ? {} : { errorClass: CLASSES[random(CLASSES.length)]! }),
    location: LOCATIONS[random(LOCATIONS.length)]!,
    environment: random(2) === 0 ? 'production' : 'staging',
  };
}).filter((run, index, all) => all.findIndex((other) => other.at.getTime() === run.at.getTime()) === index);
const inTimeOrder = [...results].sort((a, b) => a.at.getTime() - b.at.getTime());
const shuffled = [...results];
for (let i = shuffled.length - 1; i > 0; i -= 1) {
  const j = random(i + 1);
  [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
}

describe('hour and day rows added to as results arrive', () => {
  let hub: TestHub;
  const columns = sql`environment, run_count, success_count, failure_count, duration_count, duration_sum_ms,
    duration_min_ms, duration_max_ms, histogram, error_classes, first_minute, up_seconds, last_started_at,
    last_success`;
  const rows = async (monitorId: string) => ({
    hours: (
      await sql`select hour, ${columns} from run_rollups_hour where monitor_id = ${monitorId}
        order by hour, environment`.execute(hub.db)
    ).rows,
    days: (
      await sql`select day, ${columns} from run_rollups_day where monitor_id = ${monitorId}
        order by day, environment`.execute(hub.db)
    ).rows,
  });
  const recomputed = async (monitorId: string) => {
    await refreshHourRollups(hub.db, sql`r.monitor_id = ${monitorId}`);
    await refreshDayRollups(hub.db, sql`h.monitor_id = ${monitorId}`);
    return rows(monitorId);
  };

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    await seedMonitor(hub, 'in-order', []);
    await seedMonitor(hub, 'shuffled', []);
    for (const run of inTimeOrder) await recordKnownRun(hub.db, 'acme', 'in-order', run);
    for (const run of shuffled) await recordKnownRun(hub.db, 'acme', 'shuffled', run);
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('the results are many, in three hours of two days, and the shuffled order has late ones', () => {
    expect(results.length).toBeGreaterThan(80);
    expect(new Set(results.map((run) => new Date(run.at).setUTCMinutes(0, 0, 0))).size).toBe(3);
    const late = shuffled.filter((run, i) => shuffled.slice(0, i).some((earlier) => earlier.at > run.at));
    expect(late.length).toBeGreaterThan(20);
  });

  it('results in time order: every row is what its minutes give', async () => {
    const added = await rows('in-order');
    expect(added.hours).toHaveLength(9);
    expect(added.days).toHaveLength(6);
    expect(added).toEqual(await recomputed('in-order'));
  });

  it('results out of order: the same rows, exactly', async () => {
    const added = await rows('shuffled');
    expect(added).toEqual(await recomputed('shuffled'));
    expect(added).toEqual(await rows('in-order'));
  });
});
