import { sql, type Kysely } from 'kysely';

// Heartbeat monitors (docs/adr/0034-heartbeat-monitors.md): one row per heartbeat monitor, kept by its dependant
// in the monitor's transaction. The ping token is stored only as its SHA-256 (hex); the deadline is null until
// the first ping, so a new heartbeat does not fail before its job ever ran.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('heartbeats')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('period_seconds', 'integer', (c) => c.notNull())
    .addColumn('grace_seconds', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text')
    .addColumn('last_ping_at', 'timestamptz')
    .addColumn('started_at', 'timestamptz')
    .addColumn('deadline_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('heartbeats_pkey', ['organization_id', 'monitor_id'])
    .addForeignKeyConstraint(
      'heartbeats_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('heartbeats_token_hash')
    .on('heartbeats')
    .column('token_hash')
    .unique()
    .where(sql.ref('token_hash'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('heartbeats_deadline_at')
    .on('heartbeats')
    .column('deadline_at')
    .where(sql.ref('deadline_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('heartbeats').execute();
}
