import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { foldPassingRuns } from '../../hub/src/scheduling/run-fold.js';
import { databaseEngines } from '../harness/engines.js';
import { HOUR, insertRuns, MINUTE, NOW, START } from '../runs/fold-fixtures.js';
import { insertMonitorRow } from '../runs/run-rows.js';

// Migration 0025 (docs/adr/0083): `runs_fold_candidates` gives way to `run_fold_hours`, filled from the runs
// compacted before it, so the fold still finds every one of them.
const foldCandidateIndex = async (db: Db) =>
  (
    await sql<{ name: string }>`
      select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'runs'::regclass and c.relname = 'runs_fold_candidates'`.execute(db)
  ).rows.length;
const foldHoursTable = async (db: Db) =>
  (await sql<{ name: string | null }>`select to_regclass('run_fold_hours')::text as name`.execute(db)).rows[0]
    ?.name;

describe.each(databaseEngines)('migration 0025 (fold hours) on $name', (engine) => {
  it('keeps the fold finding the runs compacted before it, down to 0024 and up again', async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await migrateTo(db, '0024-latest-runs-per-environment');
      await insertMonitorRow(db);
      const first = await insertRuns(db, ['pass', 'pass', 'pass']);
      const second = await insertRuns(db, ['pass', 'pass'], { start: START + HOUR });
      await insertRuns(db, ['pass'], { id: (i) => `run_legacy-${i}`, start: START + 2 * HOUR });
      // Compacted as the compaction or RUN_DETAILS_AT_INSERT=compact-unchanged left them before 0025.
      await sql`update runs set details_compacted = true`.execute(db);
      expect(await foldCandidateIndex(db)).toBe(1);

      await migrateToLatest(db);
      expect(await foldCandidateIndex(db)).toBe(0);
      // One row a monitor and hour; the run whose id a fold cannot hold is left out.
      const hours = await db.selectFrom('run_fold_hours').select('hour').orderBy('hour').execute();
      expect(hours.map((row) => row.hour.getTime())).toEqual([START - 5 * MINUTE, START + HOUR - 5 * MINUTE]);
      expect((await foldPassingRuns({ db, clock: { now: () => NOW }, foldAfterMinutes: 1440 })).folded).toBe(
        5,
      );
      const folded = await db.selectFrom('run_folds').select('run_ids').execute();
      expect(folded.flatMap((row) => row.run_ids).sort()).toEqual(
        [...first, ...second].map((id) => id.slice(4)).sort(),
      );

      await migrateTo(db, '0024-latest-runs-per-environment');
      expect(await foldCandidateIndex(db)).toBe(1);
      expect(await foldHoursTable(db)).toBeNull();
      await migrateToLatest(db);
      expect(await foldHoursTable(db)).toBe('run_fold_hours');
    } finally {
      await dispose();
    }
  }, 180_000);
});
