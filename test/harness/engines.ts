// The two database engines the repositories must work on: real PostgreSQL (a fresh database per call)
// and embedded PGlite (in memory). Use with describe.each(databaseEngines).
import { openDatabase, openMemoryDatabase, type Db } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { createTestDatabase } from './database.js';

export interface EngineUnderTest {
  name: string;
  /** A migrated, empty database and the function that disposes of it. */
  open: (options?: { migrate?: boolean }) => Promise<{ db: Db; dispose: () => Promise<void> }>;
}

export const databaseEngines: EngineUnderTest[] = [
  {
    name: 'PostgreSQL',
    async open({ migrate = true } = {}) {
      const database = await createTestDatabase({ migrated: migrate });
      const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
      // A clone of the migrated template: nothing to apply, unless a migration was added since (watch mode).
      if (migrate) await migrateToLatest(db);
      return {
        db,
        async dispose() {
          await db.destroy();
          await database.drop();
        },
      };
    },
  },
  {
    name: 'PGlite',
    async open({ migrate = true } = {}) {
      const db = openMemoryDatabase();
      if (migrate) await migrateToLatest(db);
      return { db, dispose: () => db.destroy() };
    },
  },
];
