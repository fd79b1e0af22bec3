import type { Insertable, Selectable, Transaction } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database, NotificationRuleTable, RuleState } from '../db/tables.js';
import { jsonColumn } from '../db/json-column.js';

export type NotificationRuleRow = Selectable<NotificationRuleTable>;

export async function listRulesOfMonitor(
  db: Executor,
  organizationId: string,
  monitorId: string,
): Promise<NotificationRuleRow[]> {
  return db
    .selectFrom('notification_rules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .orderBy('id')
    .execute();
}

/**
 * The enabled rules of the monitors, locked until the caller's transaction ends. Every writer finishing runs
 * takes these locks in the same (organization, monitor, id) order, so evaluations of one monitor happen one
 * after another and each sees the state and runs the previous one committed: the check-and-set is atomic.
 */
export async function lockEnabledRulesOfMonitors(
  tx: Transaction<Database>,
  monitors: ReadonlyArray<{ organizationId: string; monitorId: string }>,
): Promise<NotificationRuleRow[]> {
  if (monitors.length === 0) return [];
  return tx
    .selectFrom('notification_rules')
    .selectAll()
    .where((eb) =>
      eb(
        eb.refTuple('organization_id', 'monitor_id'),
        'in',
        monitors.map((m) => eb.tuple(m.organizationId, m.monitorId)),
      ),
    )
    .where('enabled', '=', true)
    .orderBy('organization_id')
    .orderBy('monitor_id')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Waits for an evaluation holding the rule's lock to commit, so what it recorded is visible afterwards. */
export async function awaitRuleEvaluation(
  db: Executor,
  organizationId: string,
  ruleId: string,
): Promise<void> {
  await db
    .selectFrom('notification_rules')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', '=', ruleId)
    .forShare()
    .execute();
}

export async function listRulesWithMonitors(db: Executor, organizationId: string) {
  return db
    .selectFrom('notification_rules as r')
    .innerJoin('monitors as m', (join) =>
      join.onRef('m.organization_id', '=', 'r.organization_id').onRef('m.id', '=', 'r.monitor_id'),
    )
    .selectAll('r')
    .select(['m.definition as monitor_definition'])
    .where('r.organization_id', '=', organizationId)
    .orderBy('r.monitor_id')
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
}

export async function insertRules(db: Executor, rows: Insertable<NotificationRuleTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('notification_rules').values(rows).execute();
}

/** The columns a monitor's notification definition sets without changing the rule's identity. */
export interface RuleSettings {
  cooldown_minutes: number;
  integration_name: string;
  repeat_minutes: number | null;
  send_resolved: boolean;
  held_notifications: 'deliver' | 'drop';
}

export async function updateRuleDefinition(
  db: Executor,
  organizationId: string,
  id: string,
  changes: RuleSettings & { updated_at: Date },
): Promise<void> {
  await db
    .updateTable('notification_rules')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

export async function deleteRules(db: Executor, organizationId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('notification_rules')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
}

export async function saveRuleEvaluation(
  tx: Transaction<Database>,
  organizationId: string,
  id: string,
  changes: { state: RuleState; last_triggered_at?: Date },
): Promise<void> {
  await tx
    .updateTable('notification_rules')
    .set({
      state: jsonColumn(changes.state),
      ...(changes.last_triggered_at ? { last_triggered_at: changes.last_triggered_at } : {}),
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}
