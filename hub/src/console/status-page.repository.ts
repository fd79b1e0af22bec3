import type { Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { StatusPageTable } from '../db/tables.js';

export type StatusPageRow = Selectable<StatusPageTable>;

export async function findStatusPage(
  db: Executor,
  organizationId: string,
  project: string,
): Promise<StatusPageRow | undefined> {
  return db
    .selectFrom('status_pages')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('project', '=', project)
    .executeTakeFirst();
}

/** Switches the page; a first switch stores `newSlug`, a later one keeps the slug the page already has. */
export async function upsertStatusPage(
  db: Executor,
  page: { organizationId: string; project: string; enabled: boolean; newSlug: string; at: Date },
): Promise<StatusPageRow> {
  return db
    .insertInto('status_pages')
    .values({
      organization_id: page.organizationId,
      project: page.project,
      slug: page.newSlug,
      enabled: page.enabled,
      updated_at: page.at,
    })
    .onConflict((c) =>
      c.columns(['organization_id', 'project']).doUpdateSet({ enabled: page.enabled, updated_at: page.at }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findEnabledStatusPageBySlug(
  db: Executor,
  slug: string,
): Promise<StatusPageRow | undefined> {
  return db
    .selectFrom('status_pages')
    .selectAll()
    .where('slug', '=', slug)
    .where('enabled', '=', true)
    .executeTakeFirst();
}

/** The names of a project's monitors, in every environment, by name. */
export async function listProjectMonitors(
  db: Executor,
  organizationId: string,
  project: string,
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('monitors')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .where('project', '=', project)
    .orderBy('name')
    .orderBy('id')
    .execute();
}
