import { sql, type Kysely } from 'kysely';

// A monitor change records here, in its own transaction, that its schedules must be brought up to date; the
// scheduler applies the rows to BullMQ and deletes them (docs/adr/0006-monitor-dependants.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('schedule_outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('removed_locations', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('schedule_outbox').ifExists().execute();
}
