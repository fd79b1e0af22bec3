import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { MaintenanceWindowTable } from '../db/tables.js';

export type MaintenanceWindowRow = Selectable<MaintenanceWindowTable>;

export async function findWindowByName(db: Executor, organizationId: string, name: string) {
  return db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Inserts the window, or replaces the one of that name (keeping its id and creator). */
export async function upsertWindow(
  db: Executor,
  row: Insertable<MaintenanceWindowTable> & { updated_at: Date },
): Promise<{ row: MaintenanceWindowRow; created: boolean }> {
  const saved = await db
    .insertInto('maintenance_windows')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'name']).doUpdateSet((eb) => ({
        description: eb.ref('excluded.description'),
        matchers: eb.ref('excluded.matchers'),
        schedule: eb.ref('excluded.schedule'),
        exclude_from_figures: eb.ref('excluded.exclude_from_figures'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: saved, created: saved.id === row.id };
}

export async function deleteWindow(db: Executor, organizationId: string, name: string): Promise<boolean> {
  const result = await db
    .deleteFrom('maintenance_windows')
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Every window of the organizations, by name (few per organization: they are written by people). */
export async function listWindows(
  db: Executor,
  organizationIds: readonly string[],
): Promise<MaintenanceWindowRow[]> {
  if (organizationIds.length === 0) return [];
  return db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('organization_id', 'in', organizationIds)
    .orderBy('organization_id')
    .orderBy('name')
    .execute();
}
