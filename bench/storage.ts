// What a window of runs costs PostgreSQL on disk: the growth of each table the result transaction writes (with its
// partitions, indexes and TOAST), its rows, and the WAL written. Taken before and after the window of
// `npm run bench`, so the figures are per run of the real write path.
import { sql } from 'kysely';
import type { Db } from '../hub/src/db/database.js';
import { withClient } from './compare/meerkat-split.js';

const TABLES = [
  'runs',
  'run_rollups_minute',
  'run_rollups_hour',
  'run_rollups_day',
  'monitor_environment_latest_runs',
] as const;

export interface StorageSnapshot {
  walLsn: string;
  /** Full-page images written since the server started (pg_stat_wal): the WAL a checkpoint's first touch costs. */
  walFullPages: number | undefined;
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
  const { rows: fpi } = await sql<{ fpi: string }>`select wal_fpi::text as fpi from pg_stat_wal`.execute(db);
  const fullPages = fpi[0] === undefined ? undefined : Number(fpi[0].fpi);
  return { walLsn: rows[0]?.lsn ?? '0/0', walFullPages: fullPages, tables };
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
  databaseUrl: string,
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
  if (before.walFullPages !== undefined && after.walFullPages !== undefined) {
    const pages = after.walFullPages - before.walFullPages;
    lines.push(`WAL full-page images: ${pages} (${(pages / runs).toFixed(2)} per run, each up to 8 KiB)`);
  }
  lines.push('', ...(await runBytesByPart(db)));
  return [
    ...lines,
    '',
    ...(await walByRelation(databaseUrl, before.walLsn, after.walLsn, runs)),
    '',
    ...(await walByRecordType(databaseUrl, before.walLsn, after.walLsn, runs)),
  ];
}

/**
 * The same WAL per relation and record type (a run's insert, the compaction's update, an index entry, a fold's
 * delete), with the bytes of full-page images apart: which kind of write to make smaller, not only where.
 */
async function walByRecordType(url: string, from: string, to: string, runs: number): Promise<string[]> {
  const query = `
    with r as (
      select resource_manager || '/' || split_part(record_type, ' ', 1) as kind,
        substring(block_ref from 'rel (\\d+)/')::oid as space,
        substring(block_ref from 'rel \\d+/\\d+/(\\d+)')::oid as node,
        sum(record_length) as bytes, sum(fpi_length) as fpi, count(*) as n
      from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) group by 1, 2, 3),
    named as (
      select r.*, pg_filenode_relation(case when r.space = (select oid from pg_tablespace
        where spcname = 'pg_default') then 0 else r.space end, r.node) as rel from r)
    select coalesce(p.relname, c.relname, '-') as part, n.kind, sum(n.bytes)::text as bytes,
      sum(n.fpi)::text as fpi, sum(n.n)::text as records
    from named n left join pg_class c on c.oid = n.rel
      left join pg_inherits i on i.inhrelid = n.rel left join pg_class p on p.oid = i.inhparent
    group by 1, 2 order by sum(n.bytes) desc limit 40`;
  try {
    const rows = await withClient(url, async (client) => {
      await client.query('set statement_timeout = 0');
      // pg_walinspect reads only flushed WAL: right after a write the end may not be yet.
      for (let waits = 0; waits < 50; waits++) {
        const flushed = await client.query<{ ok: boolean }>(
          'select pg_current_wal_flush_lsn() >= $1::pg_lsn as ok',
          [to],
        );
        if (flushed.rows[0]?.ok === true) break;
        await client.query('select pg_sleep(0.1)');
      }
      return (
        await client.query<{ part: string; kind: string; bytes: string; fpi: string; records: string }>(
          query,
          [from, to],
        )
      ).rows;
    });
    const per = (value: string) => Math.round(Number(value) / runs);
    return [
      '| WAL of | record type | records per run | bytes per run | of which full-page images |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.part} | ${r.kind} | ${(Number(r.records) / runs).toFixed(2)} | ${per(r.bytes)} | ${per(r.fpi)} |`,
      ),
    ];
  } catch (error) {
    return [`WAL by record type not available: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * Where the window's WAL went (pg_walinspect): each record counted against the relation of its first block, a
 * partition or partition index under its parent's name, records of no relation (commits) under their resource
 * manager. Answers which writes to make smaller before making any; empty when the extension is not available.
 */
async function walByRelation(url: string, from: string, to: string, runs: number): Promise<string[]> {
  // Records are summed per relation first: looking up each record's relation would take minutes. On a client of
  // its own: decoding a window's WAL takes longer than the hub's pool lets a statement run.
  const query = `
    with r as (
      select resource_manager as manager, substring(block_ref from 'rel (\\d+)/')::oid as space,
        substring(block_ref from 'rel \\d+/\\d+/(\\d+)')::oid as node, sum(record_length) as bytes, count(*) as n
      from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) group by 1, 2, 3),
    named as (
      select r.*, pg_filenode_relation(case when r.space = (select oid from pg_tablespace
        where spcname = 'pg_default') then 0 else r.space end, r.node) as rel from r)
    select coalesce(p.relname, c.relname, '(' || n.manager || ')') as part,
      sum(n.bytes)::text as bytes, sum(n.n)::text as records
    from named n left join pg_class c on c.oid = n.rel
      left join pg_inherits i on i.inhrelid = n.rel left join pg_class p on p.oid = i.inhparent
    group by 1 order by sum(n.bytes) desc limit 25`;
  try {
    const rows = await withClient(url, async (client) => {
      await client.query('create extension if not exists pg_walinspect');
      await client.query('set statement_timeout = 0');
      return (await client.query<{ part: string; bytes: string; records: string }>(query, [from, to])).rows;
    });
    return [
      '| WAL of | records per run | bytes per run |',
      '|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.part} | ${(Number(r.records) / runs).toFixed(2)} | ${Math.round(Number(r.bytes) / runs)} |`,
      ),
    ];
  } catch (error) {
    return [`WAL by relation not available: ${error instanceof Error ? error.message : String(error)}`];
  }
}

const RUN_COLUMNS = [
  'organization_id',
  'id',
  'monitor_id',
  'execution_group_id',
  'location',
  'environment',
  'status',
  'triggered_by',
  'schedule_slot',
  'started_at',
  'completed_at',
  'duration_ms',
  'success',
  'errors',
  'steps',
  'browser',
  'created_at',
] as const;

/**
 * Where a run's bytes go: the average stored size of each column of the finished runs (`pg_column_size`, after
 * compression), split between passing runs whose details were compacted and the others, and each index's size per
 * row. Answers which columns to make smaller before making any.
 */
async function runBytesByPart(db: Db): Promise<string[]> {
  const sizes = RUN_COLUMNS.map((c) => sql`avg(coalesce(pg_column_size(${sql.ref(c)}), 0))::int`);
  const { rows } = await sql<{ kind: string; n: string; row: number; sizes: number[] }>`
    select case when to_jsonb(runs.*) ->> 'details_compacted' = 'true' then 'compacted' when success then 'passing' else 'failing' end as kind,
      count(*)::text as n, avg(pg_column_size(runs.*))::int as row, array[${sql.join(sizes)}] as sizes
    from runs where status in ('completed', 'failed') group by 1 order by 1`.execute(db);
  const lines = [
    `| runs | count | whole row | ${RUN_COLUMNS.join(' | ')} |`,
    `|---|---|---|${RUN_COLUMNS.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.kind} | ${r.n} | ${r.row} | ${r.sizes.join(' | ')} |`),
  ];
  const { rows: indexes } = await sql<{ name: string; bytes: string; rows: string }>`
    select parent.relname as name, sum(pg_relation_size(child.oid))::text as bytes,
      (select count(*) from runs)::text as rows
    from pg_inherits i join pg_class parent on parent.oid = i.inhparent join pg_class child on child.oid = i.inhrelid
    join pg_index pi on pi.indexrelid = parent.oid
    where pi.indrelid = 'runs'::regclass group by parent.relname order by parent.relname`.execute(db);
  lines.push('', '| runs index | bytes | bytes per row |', '|---|---|---|');
  for (const index of indexes)
    lines.push(
      `| ${index.name} | ${index.bytes} | ${Math.round(Number(index.bytes) / Number(index.rows))} |`,
    );
  return lines;
}

/**
 * What folding the window's compacted runs costs and saves (docs/adr/0061-fold-old-passing-runs.md): `fold` folds
 * them; the report gives the runs folded, the fold rows, `run_folds` with its indexes per folded run, the part of a
 * fold row that grows with its runs (arrays and steps, `pg_column_size`) per run, the WAL per folded run, and
 * `runs`' rows and bytes left.
 */
export async function foldReport(
  db: Db,
  databaseUrl: string,
  fold: () => Promise<number>,
): Promise<string[]> {
  const before = await storageSnapshot(db);
  const folded = await fold();
  const after = await storageSnapshot(db);
  const { rows: wal } = await sql<{ bytes: string }>`
    select pg_wal_lsn_diff(${after.walLsn}::pg_lsn, ${before.walLsn}::pg_lsn)::text as bytes`.execute(db);
  const { rows: sizes } = await sql<{ bytes: string }>`
    select sum(pg_total_relation_size(relid))::text as bytes from pg_partition_tree('run_folds'::regclass)`.execute(
    db,
  );
  const { rows: parts } = await sql<{ folds: string; runs: string; row: string; growing: string }>`
    select count(*)::text as folds, sum(cardinality(run_ids))::text as runs,
      sum(pg_column_size(f.*))::text as row,
      sum(pg_column_size(run_ids) + pg_column_size(group_ids) + pg_column_size(slots) + pg_column_size(started)
        + pg_column_size(completed) + pg_column_size(durations) + pg_column_size(steps))::text as growing
    from run_folds f`.execute(db);
  const { rows: indexes } = await sql<{ name: string; bytes: string }>`
    select parent.relname as name, sum(pg_relation_size(child.oid))::text as bytes
    from pg_inherits i join pg_class child on child.oid = i.inhrelid join pg_class parent on parent.oid = i.inhparent
    where parent.relname in ('run_folds_pk', 'run_folds_by_run') group by parent.relname`.execute(db);
  const total = Number(sizes[0]?.bytes ?? 0);
  const part = parts[0];
  const runs = Number(part?.runs ?? 0);
  const per = (bytes: number) => (runs > 0 ? Math.round(bytes / runs).toString() : '–');
  const lines = [
    `folded ${folded} runs into ${part?.folds ?? 0} rows (${runs} runs held in folds)`,
    '',
    '| run_folds | bytes | bytes per folded run |',
    '|---|---|---|',
    `| with its partitions, indexes and TOAST | ${total} | ${per(total)} |`,
    `| rows (pg_column_size) | ${part?.row ?? 0} | ${per(Number(part?.row ?? 0))} |`,
    `| of which the arrays and steps | ${part?.growing ?? 0} | ${per(Number(part?.growing ?? 0))} |`,
    ...indexes.map((index) => `| ${index.name} | ${index.bytes} | ${per(Number(index.bytes))} |`),
    '',
    `WAL of the fold: ${wal[0]?.bytes ?? 0} bytes, ${per(Number(wal[0]?.bytes ?? 0))} per folded run`,
    `runs left: ${after.tables.runs.rows} rows, ${after.tables.runs.bytes} bytes`,
  ];
  if (runs === 0) return lines;
  return [...lines, '', ...(await walByRecordType(databaseUrl, before.walLsn, after.walLsn, runs))];
}
