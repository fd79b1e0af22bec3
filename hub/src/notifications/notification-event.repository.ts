import { sql, type Insertable, type Selectable } from 'kysely';
import { storableText } from '../contract/storable-text.js';
import { storableJson, storableJsonColumn } from '../db/json-column.js';
import type { Executor } from '../db/database.js';
import type { NotificationEventTable } from '../db/tables.js';

export type NotificationEventRow = Selectable<NotificationEventTable>;

/** The reason and channel payloads quote run errors, which quote what targets answered: made storable here. */
export async function insertEvent(
  db: Executor,
  row: Insertable<NotificationEventTable>,
): Promise<NotificationEventRow> {
  const storable = {
    ...row,
    trigger_reason: storableText(row.trigger_reason),
    channels_notified: storableJson(row.channels_notified),
    delivery_status: storableJson(row.delivery_status),
  };
  return db.insertInto('notification_events').values(storable).returningAll().executeTakeFirstOrThrow();
}

export async function findEvent(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<NotificationEventRow | undefined> {
  return db
    .selectFrom('notification_events')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listEvents(
  db: Executor,
  organizationId: string,
  query: { ruleId?: string | undefined; limit: number; offset: number },
): Promise<{ rows: NotificationEventRow[]; total: number }> {
  let base = db.selectFrom('notification_events').where('organization_id', '=', organizationId);
  if (query.ruleId !== undefined) base = base.where('rule_id', '=', query.ruleId);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/**
 * Writes one channel's delivery status and merges `channelMeta` into that channel's `channelsNotified` entry,
 * in one statement, so concurrent reports for different channels of the event never overwrite each other.
 */
export async function mergeDeliveryStatus(
  db: Executor,
  organizationId: string,
  id: string,
  channelKey: string,
  status: Record<string, unknown>,
  channelMeta: Record<string, unknown>,
): Promise<NotificationEventRow | undefined> {
  // A delivery error quotes what a receiver answered (an SMTP or HTTP reply), which may hold NUL.
  const statusJson = storableJsonColumn(status);
  const metaJson = storableJsonColumn(channelMeta);
  return db
    .updateTable('notification_events')
    .set({
      delivery_status: sql`delivery_status || jsonb_build_object(${channelKey}::text, ${statusJson}::jsonb)`,
      channels_notified: sql`channels_notified || jsonb_build_object(${channelKey}::text,
        coalesce(channels_notified -> ${channelKey}::text, '{}'::jsonb) || ${metaJson}::jsonb)`,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** The chat thread a recovery belongs in: the latest delivered failure message of the monitor in the location. */
export async function findFailureThread(
  db: Executor,
  organizationId: string,
  event: Pick<NotificationEventRow, 'monitor_id' | 'created_at' | 'id'>,
  channelKey: string,
  location: string,
): Promise<string | undefined> {
  const entry = sql<Record<string, unknown>>`channels_notified -> ${channelKey}::text`;
  const row = await db
    .selectFrom('notification_events')
    .select(sql<string>`${entry} ->> 'thread_ts'`.as('thread_ts'))
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', event.monitor_id)
    .where('id', '!=', event.id)
    .where('created_at', '<=', event.created_at)
    .where(sql<boolean>`${entry} ->> 'kind' = 'failure'`)
    .where(sql<boolean>`${entry} ->> 'location' = ${location}`)
    .where(sql<boolean>`${entry} ->> 'thread_ts' is not null`)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.thread_ts;
}

/**
 * Whether the latest notification sent (neither held nor dropped) for the monitor in the location, before `before`,
 * told of a failure: an alert someone saw and nobody closed, which a held recovery still has to close.
 */
export async function lastSentWasFailure(
  db: Executor,
  organizationId: string,
  monitorId: string,
  location: string,
  before: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('notification_events as e')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom(
            sql<{ key: string; value: Record<string, unknown> }>`jsonb_each(e.channels_notified)`.as('c'),
          )
          .select([
            sql<string>`c.value ->> 'kind'`.as('kind'),
            sql<string>`c.value ->> 'location'`.as('location'),
          ])
          .as('channel'),
      (join) => join.onTrue(),
    )
    .select('channel.kind')
    .where('e.organization_id', '=', organizationId)
    .where('e.monitor_id', '=', monitorId)
    .where('e.created_at', '<', before)
    .where('channel.location', '=', location)
    .where(
      sql<boolean>`not exists (select 1 from jsonb_each(e.delivery_status) d
      where d.value ->> 'status' in ('held', 'dropped'))`,
    )
    .orderBy('e.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined && row.kind !== 'recovery';
}
