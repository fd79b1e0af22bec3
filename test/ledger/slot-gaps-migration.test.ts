import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { databaseEngines } from '../harness/engines.js';

const LEDGER_TABLES = ['slot_audit_cursors', 'slot_gap_totals', 'slot_gaps'];

describe.each(databaseEngines)('migration 0012 (slot gaps) on $name', (engine) => {
  it('goes down to 0011 without its tables, and up again', async () => {
    const { db, dispose } = await engine.open();
    const ledgerTables = async () =>
      (
        await sql<{ table_name: string }>`select table_name from information_schema.tables
          where table_schema = 'public' and table_name like 'slot%' order by table_name`.execute(db)
      ).rows.map((r) => r.table_name);
    try {
      expect(await ledgerTables()).toEqual(LEDGER_TABLES);
      await migrateTo(db, '0011-partitioned-minute-rollups');
      expect(await ledgerTables()).toEqual([]);
      await migrateToLatest(db);
      expect(await ledgerTables()).toEqual(LEDGER_TABLES);
    } finally {
      await dispose();
    }
  }, 180_000);
});
