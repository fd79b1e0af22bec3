import { sql, type Kysely } from 'kysely';

// Silences and maintenance windows (docs/notifications.md, docs/adr/0033-silences-and-maintenance-windows.md). Both
// are kept after they end, for audit: a silence expired early keeps its row with the new end. Rules gain the
// reminder, resolution and held-notification settings of their definition; events say which silence or window
// held them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('silences')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('matchers', 'jsonb', (c) => c.notNull())
    .addColumn('starts_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ends_at', 'timestamptz', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('expired_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('silences_pkey', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('silences_ends_at')
    .on('silences')
    .columns(['organization_id', 'ends_at'])
    .execute();
  await db.schema
    .createTable('maintenance_windows')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('matchers', 'jsonb', (c) => c.notNull())
    .addColumn('schedule', 'jsonb', (c) => c.notNull())
    .addColumn('exclude_from_figures', 'boolean', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('maintenance_windows_pkey', ['organization_id', 'id'])
    .addUniqueConstraint('maintenance_windows_name', ['organization_id', 'name'])
    .execute();
  await db.schema
    .alterTable('notification_rules')
    .addColumn('repeat_minutes', 'integer')
    .addColumn('send_resolved', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('held_notifications', 'text', (c) => c.notNull().defaultTo('deliver'))
    .execute();
  await db.schema.alterTable('notification_events').addColumn('held_by', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('notification_events').dropColumn('held_by').execute();
  await db.schema
    .alterTable('notification_rules')
    .dropColumn('repeat_minutes')
    .dropColumn('send_resolved')
    .dropColumn('held_notifications')
    .execute();
  await db.schema.dropTable('maintenance_windows').execute();
  await db.schema.dropTable('silences').execute();
}
