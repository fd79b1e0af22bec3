import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';

/** What the Prometheus series of a monitor are keyed and labelled by: no definition beyond its locations. */
export interface CatalogMonitor {
  organizationId: string;
  monitorId: string;
  name: string;
  project: string;
  environment: string;
  /** The definition's `locations`, or `default` when it names none (as the scheduler reads it). */
  locations: string[];
}

/** Every monitor of every organization, without the definition's nodes (one index walk over `monitors`). */
export async function listMonitorCatalog(db: Executor): Promise<CatalogMonitor[]> {
  const rows = await db
    .selectFrom('monitors')
    .select(['organization_id', 'id', 'name', 'project', 'environment'])
    .select(sql<unknown>`definition->'locations'`.as('locations'))
    .orderBy('organization_id')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    organizationId: row.organization_id,
    monitorId: row.id,
    name: row.name,
    project: row.project,
    environment: row.environment,
    locations:
      Array.isArray(row.locations) && row.locations.length > 0
        ? row.locations.filter((l): l is string => typeof l === 'string')
        : ['default'],
  }));
}

/** Every location some monitor runs in (`default` for a monitor that names none). */
export async function listMonitorLocations(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('monitors')
    .select(
      sql<string>`jsonb_array_elements_text(coalesce(definition->'locations', '["default"]'::jsonb))`.as(
        'location',
      ),
    )
    .distinct()
    .execute();
  return rows.map((row) => row.location).sort();
}
