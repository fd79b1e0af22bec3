import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

/** What the auditor needs of a monitor: its identity, when its schedule last changed, and its timing. */
export interface AuditedMonitor {
  organization_id: string;
  id: string;
  created_at: Date;
  updated_at: Date;
  frequency: { every: number; unit: 'MINUTE' | 'HOUR' | 'DAY' } | null;
  locations: string[] | null;
}

/**
 * The audit cursor `name`, locked for this transaction: `busy` when another transaction holds it (another
 * scheduler is auditing), `created` (at `initial`, locked too) when there was none.
 */
export async function lockAuditCursor(
  tx: Executor,
  name: string,
  initial: Date,
): Promise<{ auditedThrough: Date } | 'busy' | 'created'> {
  const locked = await tx
    .selectFrom('slot_audit_cursors')
    .select('audited_through')
    .where('name', '=', name)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (locked !== undefined) return { auditedThrough: locked.audited_through };
  const created = await tx
    .insertInto('slot_audit_cursors')
    .values({ name, audited_through: initial })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return created === undefined ? 'busy' : 'created';
}

export async function advanceAuditCursor(tx: Executor, name: string, through: Date): Promise<void> {
  await tx
    .updateTable('slot_audit_cursors')
    .set({ audited_through: through })
    .where('name', '=', name)
    .execute();
}

/**
 * Up to `limit` monitors after `after` in key order that existed before `before`, with only the parts of their
 * definition the audit needs (not the whole document: the audit reads every monitor every pass).
 */
export async function readAuditedMonitors(
  db: Executor,
  options: { after?: { organizationId: string; id: string } | undefined; before: Date; limit: number },
): Promise<AuditedMonitor[]> {
  let query = db
    .selectFrom('monitors')
    .select([
      'organization_id',
      'id',
      'created_at',
      'updated_at',
      sql<AuditedMonitor['frequency']>`definition -> 'frequency'`.as('frequency'),
      sql<AuditedMonitor['locations']>`definition -> 'locations'`.as('locations'),
    ])
    .where('created_at', '<', options.before);
  const { after } = options;
  if (after !== undefined)
    query = query.where(sql<boolean>`(organization_id, id) > (${after.organizationId}, ${after.id})`);
  return query.orderBy('organization_id').orderBy('id').limit(options.limit).execute();
}
