import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ConnectionTable } from '../db/tables.js';
import type { LimitOffset } from '../http/paging.js';

export type ConnectionRow = Selectable<ConnectionTable>;

export async function insertConnection(
  db: Executor,
  row: Insertable<ConnectionTable>,
): Promise<ConnectionRow> {
  return db.insertInto('connections').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findConnection(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateConnection(
  db: Executor,
  organizationId: string,
  id: string,
  changes: Updateable<ConnectionTable>,
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function listConnections(
  db: Executor,
  organizationId: string,
  page: LimitOffset,
): Promise<{ rows: ConnectionRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('connections')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('connections')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function deleteConnection(db: Executor, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('connections')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
