import { Migrator, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './tables.js';
import { DatabaseBehindError, MigrationFailedError } from './migration-errors.js';

function createMigrator(db: Kysely<Database>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: 'meerkat_migrations',
    migrationLockTableName: 'meerkat_migrations_lock',
    // Numbers are reserved per issue and land in merge order: 0013 came after 0014 was applied in places.
    allowUnorderedMigrations: true,
  });
}

/** Applies every pending migration; kysely's lock table keeps concurrent migrators (hook Jobs) apart. */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResult[]> {
  const { error, results = [] } = await createMigrator(db).migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationFailedError(failed?.migrationName, error);
  }
  return results;
}

/** Applies the migrations up to and including `name`: for tests of a migration over an older schema's rows. */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const { error, results = [] } = await createMigrator(db).migrateTo(name);
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationFailedError(failed?.migrationName, error);
  }
}

/** Throws DatabaseBehindError when any migration of this build has not been applied. */
export async function assertDatabaseCurrent(db: Kysely<Database>): Promise<void> {
  const known = await createMigrator(db).getMigrations();
  const pending = known.filter((m) => m.executedAt === undefined).map((m) => m.name);
  if (pending.length > 0) throw new DatabaseBehindError(pending);
}
