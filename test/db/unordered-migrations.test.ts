// Migration numbers are reserved per issue and merged in any order: a database that already has a later migration
// (0014) gets an earlier one merged after it (0013) on the next `meerkat migrate`, instead of refusing to start.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../hub/src/db/database.js';
import { assertDatabaseCurrent, migrateToLatest } from '../../hub/src/db/migrator.js';
import { createTestDatabase } from '../harness/database.js';

describe('a migration merged after a later one was applied', () => {
  it('is applied by the next migrate, and the database is current again', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
    try {
      // The state of a database migrated before 0013 existed: 0014 applied, 0013 not.
      await sql`drop table organization_quotas`.execute(db);
      await sql`delete from meerkat_migrations where name = '0013-organization-quotas'`.execute(db);
      await expect(assertDatabaseCurrent(db)).rejects.toThrow(/0013-organization-quotas/);

      const applied = await migrateToLatest(db);
      expect(applied.map((r) => [r.migrationName, r.status])).toEqual([
        ['0013-organization-quotas', 'Success'],
      ]);
      await expect(assertDatabaseCurrent(db)).resolves.toBeUndefined();
      expect(await db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
