import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { Monitor } from '../contract/monitor-definition.js';
import { textArray } from '../db/array-params.js';
import type { Executor } from '../db/database.js';
import type { Database, MonitorTable } from '../db/tables.js';
import { parseLabelSelector, type LabelRequirement } from './label-selector.js';
import { answeredDefinition } from './stored-definition.js';

export type MonitorRow = Selectable<MonitorTable>;

/** A stored row as the API shows it: the runs, the scheduler and the worker read monitors through it too. */
export function monitorRowToMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    ...answeredDefinition(row.definition),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface MonitorIdentity {
  project: string;
  environment: string;
  name: string;
}

/** The query for the row of `id`, which reading and locking both run. */
function monitorById(db: Executor, organizationId: string, id: string) {
  return db
    .selectFrom('monitors')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id);
}

export async function findMonitor(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<MonitorRow | undefined> {
  return monitorById(db, organizationId, id).executeTakeFirst();
}

/** The row of `id`, locked until the transaction ends so concurrent upserts of one monitor take turns. */
export async function lockMonitor(
  tx: Transaction<Database>,
  organizationId: string,
  id: string,
): Promise<MonitorRow | undefined> {
  return monitorById(tx, organizationId, id).forUpdate().executeTakeFirst();
}

/**
 * The row of `id` and the row that holds `identity` if another does (at most two rows), both locked until the
 * transaction ends: a write's two reads in one statement (docs/adr/0085-hub-cost-of-a-monitor-sync.md).
 */
export async function lockMonitorAndNamesake(
  tx: Transaction<Database>,
  organizationId: string,
  id: string,
  identity: MonitorIdentity,
): Promise<MonitorRow[]> {
  return tx
    .selectFrom('monitors')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        eb('id', '=', id),
        eb.and([
          eb('project', '=', identity.project),
          eb('environment', '=', identity.environment),
          eb('name', '=', identity.name),
        ]),
      ]),
    )
    .forUpdate()
    .execute();
}

/** The rows of those of `ids` that exist, in one statement whatever their number (one array parameter). */
export async function findMonitors(
  db: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<MonitorRow[]> {
  return db
    .selectFrom('monitors')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`id = any(${textArray(ids)})`)
    .execute();
}

/** The rows of those of `keys` that exist, of any organizations, in one statement (two array parameters). */
export async function findMonitorsByKeys(
  db: Executor,
  keys: ReadonlyArray<{ organizationId: string; id: string }>,
): Promise<MonitorRow[]> {
  if (keys.length === 0) return [];
  const organizations = textArray(keys.map((key) => key.organizationId));
  const ids = textArray(keys.map((key) => key.id));
  return db
    .selectFrom('monitors')
    .selectAll()
    .where(sql<boolean>`(organization_id, id) in (select * from unnest(${organizations}, ${ids}))`)
    .execute();
}

/** How many monitors the organization owns; under quotas/quota.repository.ts `lockOrganizationQuotas` for a count that holds. */
export async function countMonitors(tx: Transaction<Database>, organizationId: string): Promise<number> {
  const row = await tx
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findMonitorByIdentity(db: Executor, organizationId: string, identity: MonitorIdentity) {
  return db
    .selectFrom('monitors')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('project', '=', identity.project)
    .where('environment', '=', identity.environment)
    .where('name', '=', identity.name)
    .executeTakeFirst();
}

/** The monitors named `name` in `environment`, one per project, or only `project`'s when it is given. */
export async function findMonitorsByName(
  db: Executor,
  organizationId: string,
  query: { project?: string | undefined; environment: string; name: string },
): Promise<MonitorRow[]> {
  let select = db
    .selectFrom('monitors')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('environment', '=', query.environment)
    .where('name', '=', query.name);
  if (query.project !== undefined) select = select.where('project', '=', query.project);
  return select.orderBy('project').execute();
}

export interface MonitorFilter {
  project?: string | undefined;
  environment?: string | undefined;
  /** Kubernetes' label selector (label-selector.ts), already checked by the route. */
  labelSelector?: string | undefined;
}

/** One requirement on `definition.labels`; a missing key reads as NULL, so `!=` holds without it, as in Kubernetes. */
function labelCondition(requirement: LabelRequirement) {
  const value = sql<string | null>`(definition -> 'labels' ->> ${requirement.key})`;
  switch (requirement.operator) {
    case '=':
      return sql<boolean>`${value} = ${requirement.value}`;
    case '!=':
      return sql<boolean>`${value} is distinct from ${requirement.value}`;
    case 'exists':
      return sql<boolean>`${value} is not null`;
    case '!exists':
      return sql<boolean>`${value} is null`;
  }
}

export async function listMonitors(
  db: Executor,
  organizationId: string,
  filter: MonitorFilter,
  page: { page: number; limit: number },
): Promise<{ rows: MonitorRow[]; total: number }> {
  let query = db.selectFrom('monitors').where('organization_id', '=', organizationId);
  if (filter.project !== undefined) query = query.where('project', '=', filter.project);
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
  for (const requirement of parseLabelSelector(filter.labelSelector ?? ''))
    query = query.where(labelCondition(requirement));
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('project')
      .orderBy('environment')
      .orderBy('name')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.page * page.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** A monitor row's place in the order of changes: when it changed last, then its key. */
export interface MonitorChangeCursor {
  updatedAt: Date;
  organizationId: string;
  id: string;
}

/** Up to `limit` monitors changed after `after` (all, without it), in the order of their last change. */
export async function listMonitorsChangedAfter(
  db: Executor,
  after: MonitorChangeCursor | undefined,
  limit: number,
): Promise<MonitorRow[]> {
  let query = db.selectFrom('monitors').selectAll();
  if (after !== undefined)
    query = query.where(
      sql<boolean>`(updated_at, organization_id, id) > (${after.updatedAt}, ${after.organizationId}, ${after.id})`,
    );
  return query.orderBy('updated_at').orderBy('organization_id').orderBy('id').limit(limit).execute();
}

/** A page of every organization's monitors, in the order of organization and id. */
export async function listAllMonitors(
  db: Executor,
  page: { limit: number; offset: number },
): Promise<MonitorRow[]> {
  return db
    .selectFrom('monitors')
    .selectAll()
    .orderBy('organization_id')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** Every organization that owns at least one monitor (there is no organizations table: keys and tokens name them). */
export async function listOrganizationsWithMonitors(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('monitors')
    .select('organization_id')
    .distinct()
    .orderBy('organization_id')
    .execute();
  return rows.map((row) => row.organization_id);
}

export async function upsertMonitorRow(
  tx: Transaction<Database>,
  row: Insertable<MonitorTable>,
): Promise<MonitorRow> {
  return tx
    .insertInto('monitors')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'id']).doUpdateSet((eb) => ({
        project: eb.ref('excluded.project'),
        environment: eb.ref('excluded.environment'),
        name: eb.ref('excluded.name'),
        schema_version: eb.ref('excluded.schema_version'),
        definition: eb.ref('excluded.definition'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteMonitorRow(tx: Transaction<Database>, organizationId: string, id: string) {
  return tx
    .deleteFrom('monitors')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
