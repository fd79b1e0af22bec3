import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { OAuthTransactionTable } from '../db/tables.js';

export type OAuthTransactionRow = Selectable<OAuthTransactionTable>;

export async function insertOAuthTransaction(
  db: Executor,
  row: Insertable<OAuthTransactionTable>,
): Promise<OAuthTransactionRow> {
  return db.insertInto('oauth_transactions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findOAuthTransaction(
  db: Executor,
  id: string,
): Promise<OAuthTransactionRow | undefined> {
  return db.selectFrom('oauth_transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A pending, unexpired transaction gets a new state hash; undefined when it is no longer pending or expired. */
export async function replaceStateHash(
  db: Executor,
  id: string,
  stateHash: string,
  now: Date,
): Promise<OAuthTransactionRow | undefined> {
  return db
    .updateTable('oauth_transactions')
    .set({ state_hash: stateHash })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the transaction a `state` belongs to and, in the same statement, replaces its hash with one nobody
 * knows: a second callback with the same state finds nothing, whoever wins a race.
 */
export async function consumeState(
  db: Executor,
  stateHash: string,
  replacementHash: string,
): Promise<OAuthTransactionRow | undefined> {
  return db
    .updateTable('oauth_transactions')
    .set({ state_hash: replacementHash })
    .where('state_hash', '=', stateHash)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Moves a pending transaction to its final status; a finished one is never rewritten. */
export async function finishOAuthTransaction(
  db: Executor,
  id: string,
  changes: Updateable<OAuthTransactionTable> & { status: 'completed' | 'failed' | 'expired' },
): Promise<void> {
  await db
    .updateTable('oauth_transactions')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}
