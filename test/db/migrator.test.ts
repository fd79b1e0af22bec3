import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DatabaseBehindError } from '../../hub/src/db/migration-errors.js';
import { assertDatabaseCurrent, migrateToLatest } from '../../hub/src/db/migrator.js';
import { databaseEngines } from '../harness/engines.js';

describe.each(databaseEngines)('migrations on $name', (engine) => {
  it('say a fresh database is behind, then create every table, then apply nothing twice', async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await expect(assertDatabaseCurrent(db)).rejects.toThrow(DatabaseBehindError);
      await expect(assertDatabaseCurrent(db)).rejects.toThrow(/run `meerkat migrate`/);

      const first = await migrateToLatest(db);
      expect(first.map((r) => r.status)).toEqual(first.map(() => 'Success'));
      await expect(assertDatabaseCurrent(db)).resolves.toBeUndefined();
      expect(await migrateToLatest(db)).toEqual([]);

      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(
        db,
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining([
          'connections',
          'integrations',
          'monitors',
          'notification_events',
          'notification_rules',
          'oauth_transactions',
          'runs',
          'secret_maps',
        ]),
      );
    } finally {
      await dispose();
    }
  });
});
