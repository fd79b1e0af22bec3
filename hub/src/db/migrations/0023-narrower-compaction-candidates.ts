import { sql, type Kysely } from 'kysely';

// Fewer bytes of index per run for the compaction's and the fold's candidates (docs/adr/0068-*.md).
// `runs_details_uncompacted` keeps only `created_at`: every passing scheduled run gets an entry at insert, and
// without the 41-byte id the entry (and its WAL) is about half as long; the compaction orders runs of the same
// `created_at` by id after the index scan. `runs_details_unfoldable` holds the candidates whose ids a fold cannot
// hold (not `run_`/`grp_` and a UUID, hub/src/runs/run-keep.repository.ts): with folds on they are all the
// compaction rewrites, so it walks them alone instead of a day of runs left whole for the fold. Runs with the
// usual ids get no entry in it. The pattern is spelled as `foldableIds` spells it, so the planner matches them.
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CANDIDATE = sql`success and triggered_by = 'schedule' and details_compacted is null`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_details_uncompacted`.execute(db);
  await sql`create index runs_details_uncompacted on runs (created_at) where ${CANDIDATE}`.execute(db);
  await sql`create index runs_details_unfoldable on runs (created_at, id) where ${CANDIDATE}
    and not (id ~ ${sql.lit(`^run_${UUID}$`)} and execution_group_id ~ ${sql.lit(`^grp_${UUID}$`)})`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_details_unfoldable`.execute(db);
  await sql`drop index runs_details_uncompacted`.execute(db);
  await sql`create index runs_details_uncompacted on runs (created_at, id) where ${CANDIDATE}`.execute(db);
}
