import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { SilenceTable } from '../db/tables.js';

export type SilenceRow = Selectable<SilenceTable>;

export async function insertSilence(db: Executor, row: Insertable<SilenceTable>): Promise<SilenceRow> {
  return db.insertInto('silences').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findSilence(db: Executor, organizationId: string, id: string) {
  return db
    .selectFrom('silences')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of silences, newest first; `state` is judged at `now` (pending, active, expired). */
export async function listSilences(
  db: Executor,
  organizationId: string,
  query: { state?: 'pending' | 'active' | 'expired' | undefined; now: Date; limit: number; offset: number },
): Promise<{ rows: SilenceRow[]; total: number }> {
  let base = db.selectFrom('silences').where('organization_id', '=', organizationId);
  if (query.state === 'pending') base = base.where('starts_at', '>', query.now);
  if (query.state === 'active')
    base = base.where('starts_at', '<=', query.now).where('ends_at', '>', query.now);
  if (query.state === 'expired') base = base.where('ends_at', '<=', query.now);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Ends a silence that has not ended yet at `now`; answers the row as it is afterwards. */
export async function expireSilence(
  db: Executor,
  organizationId: string,
  id: string,
  change: { now: Date; by: string },
): Promise<SilenceRow | undefined> {
  await db
    .updateTable('silences')
    .set((eb) => ({
      ends_at: change.now,
      // A silence that had not started yet ends before it starts: it never held anything.
      starts_at: eb.fn('least', [eb.ref('starts_at'), eb.val(change.now)]),
      expired_by: change.by,
      updated_at: change.now,
    }))
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('ends_at', '>', change.now)
    .execute();
  return findSilence(db, organizationId, id);
}

/** The silences of the organizations in force at some instant of [from, to]. */
export async function listSilencesInForce(
  db: Executor,
  organizationIds: readonly string[],
  during: { from: Date; to: Date },
): Promise<SilenceRow[]> {
  if (organizationIds.length === 0) return [];
  return db
    .selectFrom('silences')
    .selectAll()
    .where('organization_id', 'in', organizationIds)
    .where('starts_at', '<=', during.to)
    .where('ends_at', '>', during.from)
    .orderBy('organization_id')
    .orderBy('id')
    .execute();
}
