import { sql, type Kysely } from 'kysely';

// Passing runs lose their step details once they are old enough and neither the latest of their monitor nor a
// change of outcome (docs/adr/0050-run-details-compaction.md). `details_compacted` is null until the compaction
// job has looked at a run, false for a run it keeps whole for good (a change of outcome), true once compacted. The
// partial index holds only the passing scheduled runs not looked at yet: the recent ones, so it stays small.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs add column details_compacted boolean`.execute(db);
  await sql`create index runs_details_uncompacted on runs (created_at, id)
    where success and triggered_by = 'schedule' and details_compacted is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_details_uncompacted`.execute(db);
  await sql`alter table runs drop column details_compacted`.execute(db);
}
