// What a window of runs costs PostgreSQL on disk: the growth of each table the result transaction writes (with its
// partitions, indexes and TOAST), its rows, and the WAL written. Taken before and after the window of
// `npm run bench`, so the figures are per run of the real write path.
import { sql } from 'kysely';
import type { Db } from '../hub/src/db/database.js';

const TABLES = [
  'runs',
  'run_rollups_minute',
  'run_rollups_hour',
  'run_rollups_day',
  'monitor_latest_runs',
] as const;

export interface StorageSnapshot {
  walLsn: string;
  tables: Record<(typeof TABLES)[number], { bytes: number; rows: number }>;
}

export async function storageSnapshot(db: Db): Promise<StorageSnapshot> {
  const tables = {} as StorageSnapshot['tables'];
  for (const table of TABLES) {
    // pg_partition_tree lists a partitioned table's partitions, and nothing for a plain table.
    const { rows } = await sql<{ bytes: string; rows: string }>`
      select coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree(${table}::regclass)),
          pg_total_relation_size(${table}::regclass)) as bytes,
        (select count(*) from ${sql.table(table)}) as rows`.execute(db);
    tables[table] = { bytes: Number(rows[0]?.bytes ?? 0), rows: Number(rows[0]?.rows ?? 0) };
  }
  const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
  return { walLsn: rows[0]?.lsn ?? '0/0', tables };
}

/**
 * A markdown table of the growth between two snapshots, per run and per row added, each table's size per row it
 * holds at the end (rows updated in place, as rollups are, add no row but may grow the table), and the WAL per run.
 */
export async function storageReport(
  db: Db,
  before: StorageSnapshot,
  after: StorageSnapshot,
  runs: number,
): Promise<string[]> {
  const { rows } = await sql<{ bytes: string }>`
    select pg_wal_lsn_diff(${after.walLsn}::pg_lsn, ${before.walLsn}::pg_lsn)::text as bytes`.execute(db);
  const wal = Number(rows[0]?.bytes ?? 0);
  const lines = [
    '| table | rows added | bytes added | bytes per run | bytes per row added | rows now | bytes per row now |',
    '|---|---|---|---|---|---|---|',
  ];
  let total = 0;
  for (const table of TABLES) {
    const bytes = after.tables[table].bytes - before.tables[table].bytes;
    const added = after.tables[table].rows - before.tables[table].rows;
    total += bytes;
    const perRow = added > 0 ? Math.round(bytes / added).toString() : '–';
    const now = after.tables[table];
    const perRowNow = now.rows > 0 ? Math.round(now.bytes / now.rows).toString() : '–';
    lines.push(
      `| ${table} | ${added} | ${bytes} | ${Math.round(bytes / runs)} | ${perRow} | ${now.rows} | ${perRowNow} |`,
    );
  }
  lines.push(`| all | | ${total} | ${Math.round(total / runs)} | | | |`);
  lines.push('', `WAL: ${wal} bytes, ${Math.round(wal / runs)} per run`);
  return lines;
}
