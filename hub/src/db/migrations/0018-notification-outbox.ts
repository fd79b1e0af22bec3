import { type Kysely, sql } from 'kysely';

// A notification to deliver is recorded here in the transaction that records its event, and handed to the
// delivery queue only after that transaction commits (docs/adr/0051-notification-outbox.md): a rolled-back run
// leaves no delivery, and Redis away when a run is recorded delays its notification instead of failing the run.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('channel_key', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_outbox').ifExists().execute();
}
