import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';

// Every run upserts its monitor's hour, day and latest rows. A row updated on a full page moves to another one,
// which writes the whole row and an entry in each index to the WAL; with room kept on its page the update stays
// there and logs only what changed (docs/adr/0058-rollup-wal-per-run.md). Forty monitors fill several pages.
const MONITORS = Array.from({ length: 40 }, (_, i) => `room-${String(i).padStart(2, '0')}`);
// Each monitor's latest runs are kept per environment only; the '' row is read from them (ADR 0075).
const TABLES = ['run_rollups_hour', 'run_rollups_day', 'monitor_environment_latest_runs'] as const;
const ROWS_PER_MONITOR = { run_rollups_hour: 2, run_rollups_day: 2, monitor_environment_latest_runs: 1 };

describe('rows the rollup hook updates for every run', () => {
  let hub: TestHub;

  /** Each row of `table` of the seeded monitors as "monitor environment", with the page it is stored on. */
  async function pagesOf(table: (typeof TABLES)[number]): Promise<Map<string, string>> {
    const { rows } = await sql<{ key: string; page: string }>`
      select monitor_id || ' ' || environment as key, split_part(trim(both '()' from ctid::text), ',', 1) as page
      from ${sql.table(table)} where monitor_id like 'room-%'`.execute(hub.db);
    return new Map(rows.map((row) => [row.key, row.page]));
  }

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    for (const id of MONITORS)
      await seedMonitor(hub, id, [{ at: at('11:05'), success: true, durationMs: 100 }]);
  });
  afterAll(async () => {
    await hub.close();
  });

  it('stay on their page when the next run of the same hour is added to them', async () => {
    const before = new Map(await Promise.all(TABLES.map(async (t) => [t, await pagesOf(t)] as const)));
    for (const id of MONITORS)
      await recordKnownRun(hub.db, 'acme', id, { at: at('11:06'), success: false, durationMs: 300 });
    for (const table of TABLES) {
      const after = await pagesOf(table);
      expect(after.size, table).toBe(MONITORS.length * ROWS_PER_MONITOR[table]);
      expect(Object.fromEntries(after), table).toEqual(Object.fromEntries(before.get(table)!));
    }
  });

  it('still sum both runs of each monitor', async () => {
    const rows = await hub.db
      .selectFrom('run_rollups_hour')
      .select(['run_count', 'success_count', 'failure_count'])
      .where('monitor_id', 'like', 'room-%')
      .where('environment', '=', '')
      .execute();
    expect(rows).toHaveLength(MONITORS.length);
    expect(rows.every((r) => r.run_count === 2 && r.success_count === 1 && r.failure_count === 1)).toBe(true);
  });
});
