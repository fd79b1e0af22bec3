import { sql, type Kysely } from 'kysely';

// The slot ledger (docs/adr/0025-slot-ledger.md): a due slot that got no run row gets one gap row saying why,
// the monotonic totals the `meerkat_slots_missed_total` counter reads (kept apart from the gaps, so deleting
// gaps past RUN_RETENTION_DAYS or with their monitor never makes the counter go down), and the auditor's cursor.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('slot_gaps')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('schedule_slot', 'text', (c) => c.notNull())
    .addColumn('slot_at', 'timestamptz', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // The same key as a scheduled run's (without its partition column): a slot is a run or a gap, once.
    .addPrimaryKeyConstraint('slot_gaps_pk', ['organization_id', 'monitor_id', 'location', 'schedule_slot'])
    .addForeignKeyConstraint(
      'slot_gaps_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The retention deletes gaps by age.
  await db.schema.createIndex('slot_gaps_by_slot_at').on('slot_gaps').column('slot_at').execute();

  await db.schema
    .createTable('slot_gap_totals')
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('slot_gap_totals_pk', ['location', 'reason'])
    .execute();

  // One row per audit (named, so another audit could have its own): the end of the window audited so far.
  await db.schema
    .createTable('slot_audit_cursors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('audited_through', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('slot_audit_cursors').ifExists().execute();
  await db.schema.dropTable('slot_gap_totals').ifExists().execute();
  await db.schema.dropTable('slot_gaps').ifExists().execute();
}
