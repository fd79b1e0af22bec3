import { answeredDefinition } from '../monitors/stored-definition.js';
import { monitorLocations } from '../contract/stored-monitor.js';
import type { Executor } from '../db/database.js';

/** Name and project of each monitor (by `organization/id`), the labels a run does not carry itself. */
export async function monitorLabelsOf(
  db: Executor,
  monitors: ReadonlyArray<{ organizationId: string; monitorId: string }>,
): Promise<Map<string, { name: string; project: string }>> {
  if (monitors.length === 0) return new Map();
  const rows = await db
    .selectFrom('monitors')
    .select(['organization_id', 'id', 'name', 'project'])
    .where((eb) =>
      eb(
        eb.refTuple('organization_id', 'id'),
        'in',
        monitors.map((m) => eb.tuple(m.organizationId, m.monitorId)),
      ),
    )
    .execute();
  return new Map(
    rows.map((row) => [`${row.organization_id}/${row.id}`, { name: row.name, project: row.project }]),
  );
}

/** The labels of an organization's monitors (some of them, by id), with the locations each runs in. */
export async function monitorsWithLocations(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
) {
  if (monitorIds.length === 0) return [];
  const rows = await db
    .selectFrom('monitors')
    .select(['id', 'name', 'project', 'environment', 'definition'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', monitorIds)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    project: row.project,
    environment: row.environment,
    locations: monitorLocations(answeredDefinition(row.definition)),
  }));
}
