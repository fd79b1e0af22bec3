import { sql, type Kysely } from 'kysely';

// Room on each page for the next version of a row updated once a minute (docs/adr/0058-rollup-wal-per-run.md):
// the hour and day rollups and each monitor's latest runs are upserted for every run. On a full page the update
// moves the row to another page, writes the whole new row to the WAL and an entry in every index; with room
// left on the page it is a heap-only update that logs only the bytes that changed. Pages written before this
// keep their packing until they are rewritten.
const TABLES = ['run_rollups_hour', 'run_rollups_day', 'monitor_latest_runs'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.table(table)} set (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.table(table)} reset (fillfactor)`.execute(db);
}
