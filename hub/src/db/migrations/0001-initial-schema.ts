import { sql, type Kysely } from 'kysely';

// Migrations are frozen once released: never edit one, add the next. They take Kysely<unknown> on purpose,
// so they do not drift with today's table types.

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable('monitors')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('schema_version', 'text', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('monitors_pk', ['organization_id', 'id'])
    .addUniqueConstraint('monitors_identity_key', ['organization_id', 'project', 'environment', 'name'])
    .execute();
  await db.schema
    .createIndex('monitors_by_environment')
    .on('monitors')
    .columns(['organization_id', 'environment', 'name'])
    .execute();

  await db.schema
    .createTable('runs')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('execution_group_id', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'running', 'completed', 'failed')`),
    )
    .addColumn('triggered_by', 'text', (c) => c.notNull().check(sql`triggered_by in ('schedule', 'manual')`))
    .addColumn('schedule_slot', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('duration_ms', 'double precision')
    .addColumn('success', 'boolean')
    .addColumn('errors', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('steps', 'jsonb')
    .addColumn('browser', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('runs_pk', ['organization_id', 'id'])
    .addForeignKeyConstraint(
      'runs_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addUniqueConstraint('runs_schedule_slot_key', [
      'organization_id',
      'monitor_id',
      'location',
      'schedule_slot',
    ])
    .execute();
  await db.schema
    .createIndex('runs_by_monitor')
    .on('runs')
    .columns(['organization_id', 'monitor_id', 'created_at desc'])
    .execute();
  await db.schema
    .createIndex('runs_by_status')
    .on('runs')
    .columns(['organization_id', 'status', 'created_at desc'])
    .execute();
  await db.schema
    .createIndex('runs_by_created')
    .on('runs')
    .columns(['organization_id', 'created_at desc'])
    .execute();
  // The sweeper that fails runs stuck in `running` scans only unfinished runs.
  await db.schema
    .createIndex('runs_unfinished')
    .on('runs')
    .columns(['status', 'started_at'])
    .where(sql.ref('status'), 'in', ['pending', 'running'])
    .execute();

  await db.schema
    .createTable('connections')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('auth_method', 'text', (c) => c.notNull())
    .addColumn('credentials_encrypted', 'text')
    .addColumn('oauth_connected_at', 'timestamptz')
    .addColumn('oauth_scopes', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('connections_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('connections_by_created')
    .on('connections')
    .columns(['organization_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('integrations')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_type', 'text', (c) => c.notNull())
    .addColumn('config', 'jsonb', (c) => c.notNull())
    .addColumn('credentials_encrypted', 'text')
    .addColumn('connection_id', 'text')
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('integrations_pk', ['organization_id', 'id'])
    .addUniqueConstraint('integrations_name_key', ['organization_id', 'environment', 'name'])
    .addForeignKeyConstraint(
      'integrations_connection_fk',
      ['organization_id', 'connection_id'],
      'connections',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('restrict'),
    )
    .execute();
  await db.schema
    .createIndex('integrations_by_type')
    .on('integrations')
    .columns(['organization_id', 'environment', 'provider_type'])
    .execute();

  await db.schema
    .createTable('notification_rules')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('identity_hash', 'text', (c) => c.notNull())
    .addColumn('trigger', 'jsonb', (c) => c.notNull())
    .addColumn('routing', 'jsonb', (c) => c.notNull())
    .addColumn('integration_id', 'text', (c) => c.notNull())
    .addColumn('integration_name', 'text', (c) => c.notNull())
    .addColumn('cooldown_minutes', 'integer', (c) =>
      c.notNull().check(sql`cooldown_minutes between 0 and 1440`),
    )
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('last_triggered_at', 'timestamptz')
    .addColumn('state', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('notification_rules_pk', ['organization_id', 'id'])
    .addUniqueConstraint('notification_rules_identity_key', [
      'organization_id',
      'monitor_id',
      'identity_hash',
    ])
    .addForeignKeyConstraint(
      'notification_rules_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'notification_rules_integration_fk',
      ['organization_id', 'integration_id'],
      'integrations',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('restrict'),
    )
    .execute();

  await db.schema
    .createTable('notification_events')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text')
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text')
    .addColumn('trigger_reason', 'text', (c) => c.notNull())
    .addColumn('channels_notified', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('delivery_status', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('notification_events_pk', ['organization_id', 'id'])
    .addForeignKeyConstraint(
      'notification_events_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('notification_events_by_rule')
    .on('notification_events')
    .columns(['organization_id', 'rule_id', 'created_at desc'])
    .execute();
  await db.schema
    .createIndex('notification_events_by_created')
    .on('notification_events')
    .columns(['organization_id', 'created_at desc'])
    .execute();

  await db.schema
    .createTable('oauth_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('provider_type', 'text', (c) => c.notNull())
    .addColumn('state_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'completed', 'expired', 'failed')`),
    )
    .addColumn('integration_id', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('secret_maps')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('secret_maps_pk', ['organization_id', 'environment'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'secret_maps',
    'oauth_transactions',
    'notification_events',
    'notification_rules',
    'integrations',
    'connections',
    'runs',
    'monitors',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
