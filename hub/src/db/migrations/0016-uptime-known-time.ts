import { sql, type Kysely } from 'kysely';

// Uptime counts only known time (docs/adr/0048-uptime-counts-known-time.md). A recorded gap becomes a marker in
// the minute rollups (a row without runs whose `last_success` is null: "no data from here"), so the hour and day
// rows summed from minutes keep how much of their time was known (`known_seconds`) after the runs, the gaps and
// the minutes are gone. `known_seconds` is null on rows summed before this migration: all their time from their
// first minute counts as known, as it did. `folded_at` marks the gaps already turned into markers.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('run_rollups_minute')
    .alterColumn('last_success', (c) => c.dropNotNull())
    .execute();
  for (const table of ['run_rollups_hour', 'run_rollups_day'])
    await db.schema.alterTable(table).addColumn('known_seconds', 'double precision').execute();
  await db.schema.alterTable('slot_gaps').addColumn('folded_at', 'timestamptz').execute();
  await db.schema
    .createIndex('slot_gaps_not_folded')
    .on('slot_gaps')
    .column('recorded_at')
    .where(sql.ref('folded_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('slot_gaps_not_folded').ifExists().execute();
  await db.schema.alterTable('slot_gaps').dropColumn('folded_at').execute();
  for (const table of ['run_rollups_day', 'run_rollups_hour'])
    await db.schema.alterTable(table).dropColumn('known_seconds').execute();
  // Gap markers have no runs: without them the minutes are what they were before 0016.
  await sql`delete from run_rollups_minute where last_success is null`.execute(db);
  await db.schema
    .alterTable('run_rollups_minute')
    .alterColumn('last_success', (c) => c.setNotNull())
    .execute();
}
