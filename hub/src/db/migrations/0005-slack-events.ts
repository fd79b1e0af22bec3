import { sql, type Kysely } from 'kysely';

// The chat install flow remembers what the admin asked for (integration name, default channel) until the
// callback, and the events webhook keeps the ids of the events it has processed, so a retried delivery
// (X-Slack-Retry-Num) has no second effect: the primary key on event_id decides, under any concurrency.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_transactions').addColumn('integration_name', 'text').execute();
  await db.schema.alterTable('oauth_transactions').addColumn('channel', 'text').execute();

  await db.schema
    .createTable('slack_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('slack_events_by_received').on('slack_events').column('received_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('slack_events').execute();
  await db.schema.alterTable('oauth_transactions').dropColumn('channel').execute();
  await db.schema.alterTable('oauth_transactions').dropColumn('integration_name').execute();
}
