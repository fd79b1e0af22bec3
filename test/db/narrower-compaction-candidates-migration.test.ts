import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { compactPassingRuns } from '../../hub/src/runs/run-compaction.repository.js';
import { databaseEngines } from '../harness/engines.js';
import { insertRuns, START } from '../runs/fold-fixtures.js';
import { insertMonitorRow } from '../runs/run-rows.js';

/** The compaction's candidate indexes of `runs`: their columns and predicate. */
const candidateIndexes = async (db: Db) =>
  (
    await sql<{ name: string; definition: string }>`
      select c.relname as name, pg_get_indexdef(i.indexrelid) as definition from pg_index i
        join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'runs'::regclass and c.relname like 'runs_details_%' order by 1`.execute(db)
  ).rows.map((r) => `${r.name}: ${r.definition.replace(/^.* USING btree /, '')}`);

const compact = (db: Db, leaveToFold: boolean) =>
  compactPassingRuns(db, { before: new Date(), cursor: undefined, keepLatest: 1, batch: 500, leaveToFold });

describe.each(databaseEngines)('migration 0023 (narrower compaction candidates) on $name', (engine) => {
  it('keeps the compaction finding the runs written before it, down to 0022 and up again', async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await migrateTo(db, '0022-hour-rollups-from-minutes');
      await insertMonitorRow(db);
      await insertRuns(db, ['pass', 'pass', 'pass']);
      await insertRuns(db, ['pass', 'pass'], { id: (i) => `run_legacy-${i}`, start: START + 10 * 60_000 });

      await migrateToLatest(db);
      const [uncompacted, unfoldable] = await candidateIndexes(db);
      expect(uncompacted).toMatch(/^runs_details_uncompacted: \(created_at\) WHERE/);
      expect(unfoldable).toMatch(/^runs_details_unfoldable: \(created_at, id\) WHERE .*NOT/);
      // With folds on only the runs whose ids a fold cannot hold; with folds off all five.
      expect((await compact(db, true)).examined).toBe(2);
      expect((await compact(db, false)).examined).toBe(4);

      await migrateTo(db, '0022-hour-rollups-from-minutes');
      expect(await candidateIndexes(db)).toEqual([
        expect.stringMatching(/^runs_details_uncompacted: \(created_at, id\) WHERE/),
      ]);
    } finally {
      await dispose();
    }
  }, 180_000);
});
