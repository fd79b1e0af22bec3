import type { Selectable } from 'kysely';
import type { DbTransaction, Executor } from '../db/database.js';
import { jsonColumn } from '../db/json-column.js';
import type { ScheduleOutboxTable } from '../db/tables.js';

export type ScheduleOutboxRow = Selectable<ScheduleOutboxTable>;

/** Records, in the caller's transaction, that a monitor's schedules need applying and which locations it left. */
export async function recordScheduleChange(
  db: Executor,
  organizationId: string,
  monitorId: string,
  removedLocations: string[],
): Promise<void> {
  await db
    .insertInto('schedule_outbox')
    .values({
      organization_id: organizationId,
      monitor_id: monitorId,
      removed_locations: jsonColumn(removedLocations),
    })
    .execute();
}

/** Up to `limit` pending rows, oldest first, locked (SKIP LOCKED) until the transaction ends. */
export async function lockScheduleChanges(tx: DbTransaction, limit: number): Promise<ScheduleOutboxRow[]> {
  return tx
    .selectFrom('schedule_outbox')
    .selectAll()
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function deleteScheduleChanges(tx: DbTransaction, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await tx.deleteFrom('schedule_outbox').where('id', 'in', ids).execute();
}
