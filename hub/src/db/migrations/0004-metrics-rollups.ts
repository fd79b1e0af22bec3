import { sql, type Kysely } from 'kysely';

// Per-minute run rollups, maintained in the transaction that records each run result, so the metrics
// endpoints read a few rows per minute instead of every run (docs/metrics.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('run_rollups_minute')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('run_count', 'integer', (c) => c.notNull())
    .addColumn('success_count', 'integer', (c) => c.notNull())
    .addColumn('failure_count', 'integer', (c) => c.notNull())
    .addColumn('duration_count', 'integer', (c) => c.notNull())
    .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
    .addColumn('duration_min_ms', 'double precision')
    .addColumn('duration_max_ms', 'double precision')
    .addColumn('histogram', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('error_classes', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('last_started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_success', 'boolean', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_rollups_minute_pk', [
      'organization_id',
      'monitor_id',
      'minute',
      'location',
      'environment',
    ])
    .addForeignKeyConstraint(
      'run_rollups_minute_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The fleet endpoints read every monitor of an organization over a period.
  await db.schema
    .createIndex('run_rollups_minute_by_org_minute')
    .on('run_rollups_minute')
    .columns(['organization_id', 'minute'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('run_rollups_minute').ifExists().execute();
}
