import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { IntegrationTable } from '../db/tables.js';
import type { LimitOffset } from '../http/paging.js';

export type IntegrationRow = Selectable<IntegrationTable>;

export async function insertIntegration(
  db: Executor,
  row: Insertable<IntegrationTable>,
): Promise<IntegrationRow> {
  return db.insertInto('integrations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findIntegration(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<IntegrationRow | undefined> {
  return db
    .selectFrom('integrations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The integrations a notification definition may resolve to: by name, or every one of a channel type. */
export async function findIntegrationsForRouting(
  db: Executor,
  organizationId: string,
  environment: string,
  choice: { name: string } | { providerType: string },
): Promise<IntegrationRow[]> {
  let query = db
    .selectFrom('integrations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment);
  query =
    'name' in choice
      ? query.where('name', '=', choice.name)
      : query.where('provider_type', '=', choice.providerType).where('enabled', '=', true);
  return query.orderBy('name').execute();
}

export async function listIntegrations(
  db: Executor,
  organizationId: string,
  page: LimitOffset,
): Promise<{ rows: IntegrationRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('integrations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('integrations')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function updateIntegration(
  db: Executor,
  organizationId: string,
  id: string,
  changes: Updateable<IntegrationTable>,
): Promise<IntegrationRow | undefined> {
  return db
    .updateTable('integrations')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteIntegration(db: Executor, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('integrations')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
