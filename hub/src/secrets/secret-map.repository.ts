import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import type { Database, SecretMapTable } from '../db/tables.js';

export type SecretMapRow = Selectable<SecretMapTable>;

/**
 * Runs `work` in a transaction that holds the advisory lock of one (organization, environment) map, so writers
 * to that map take turns across every hub replica. The lock ends with the transaction, also when the process
 * dies. Two maps whose keys hash alike merely share a lock.
 */
export async function withSecretMapLock<T>(
  db: Db,
  organizationId: string,
  environment: string,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  // Neither part can contain "/", so the key names exactly one map.
  const key = `meerkat.secret_map:${organizationId}/${environment}`;
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    return work(trx);
  });
}

/** The local backend's encrypted map of one environment. */
export async function findSecretMapRow(
  db: Executor,
  organizationId: string,
  environment: string,
): Promise<SecretMapRow | undefined> {
  return db
    .selectFrom('secret_maps')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment)
    .executeTakeFirst();
}

export async function saveSecretMapRow(db: Executor, row: SecretMapRow): Promise<void> {
  await db
    .insertInto('secret_maps')
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(['organization_id', 'environment']).doUpdateSet({
        ciphertext: row.ciphertext,
        version: row.version,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteSecretMapRow(
  db: Executor,
  organizationId: string,
  environment: string,
): Promise<void> {
  await db
    .deleteFrom('secret_maps')
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment)
    .execute();
}

/** The map's revision: 0 until the first write. */
export async function findSecretMapRevision(
  db: Executor,
  organizationId: string,
  environment: string,
): Promise<number> {
  const row = await db
    .selectFrom('secret_map_revisions')
    .select('revision')
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment)
    .executeTakeFirst();
  return row?.revision ?? 0;
}

/** Counts one more write to the map and returns the new revision. */
export async function bumpSecretMapRevision(
  db: Executor,
  organizationId: string,
  environment: string,
  now: Date,
): Promise<number> {
  const row = await db
    .insertInto('secret_map_revisions')
    .values({ organization_id: organizationId, environment, revision: 1, updated_at: now })
    .onConflict((conflict) =>
      conflict.columns(['organization_id', 'environment']).doUpdateSet((eb) => ({
        revision: eb('secret_map_revisions.revision', '+', 1),
        updated_at: now,
      })),
    )
    .returning('revision')
    .executeTakeFirstOrThrow();
  return row.revision;
}
