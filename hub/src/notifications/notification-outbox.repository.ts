import type { Selectable } from 'kysely';
import type { DbTransaction, Executor } from '../db/database.js';
import type { NotificationOutboxTable } from '../db/tables.js';
import type { DeliveryJobData } from './delivery-queue.js';

export type NotificationOutboxRow = Selectable<NotificationOutboxTable>;

/** Records, in the caller's transaction (the one that records the events), the deliveries to hand over. */
export async function recordDeliveries(tx: DbTransaction, jobs: readonly DeliveryJobData[]): Promise<void> {
  if (jobs.length === 0) return;
  await tx
    .insertInto('notification_outbox')
    .values(
      jobs.map((job) => ({
        organization_id: job.organizationId,
        event_id: job.eventId,
        channel_key: job.channelKey,
        rule_id: job.ruleId,
      })),
    )
    .execute();
}

/** Up to `limit` pending rows, oldest first, locked (SKIP LOCKED) until the transaction ends. */
export async function lockPendingDeliveries(
  tx: DbTransaction,
  limit: number,
): Promise<NotificationOutboxRow[]> {
  return tx
    .selectFrom('notification_outbox')
    .selectAll()
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function deleteDeliveries(tx: DbTransaction, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await tx.deleteFrom('notification_outbox').where('id', 'in', ids).execute();
}

/** The rows not handed over yet (committed ones; a drain in flight still counts its own). */
export async function countPendingDeliveries(db: Executor): Promise<number> {
  const { pending } = await db
    .selectFrom('notification_outbox')
    .select((eb) => eb.fn.countAll<string>().as('pending'))
    .executeTakeFirstOrThrow();
  return Number(pending);
}

export function deliveryOf(row: NotificationOutboxRow): DeliveryJobData {
  return {
    organizationId: row.organization_id,
    eventId: row.event_id,
    channelKey: row.channel_key,
    ruleId: row.rule_id,
  };
}
