import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { recordLatestRuns } from '../../hub/src/metrics/latest-runs.repository.js';
import type { RunRow } from '../../hub/src/runs/run.repository.js';
import { createTestDatabase } from '../harness/database.js';
import { databaseEngines } from '../harness/engines.js';
import { insertMonitorRow } from '../runs/run-rows.js';

// recordLatestRuns updates the rows that exist and inserts the others with no `on conflict` (docs/adr/0078): the
// same rows as the upsert gave, no tuple lock in the WAL, and the upsert again when another writer races it.

const t = (minute: number) => new Date(Date.UTC(2026, 10, 30, 1, minute));

/** A finished run of `monitor` created (and started) at minute `minute`. */
const run = (monitor: string, minute: number, success: boolean, environment = 'production'): RunRow => ({
  organization_id: 'acme',
  id: `run_${monitor}_${environment}_${minute}`,
  monitor_id: monitor,
  execution_group_id: 'grp',
  location: 'default',
  environment,
  status: success ? 'completed' : 'failed',
  triggered_by: 'schedule',
  schedule_slot: String(t(minute).getTime()),
  started_at: t(minute),
  completed_at: t(minute),
  duration_ms: 100 + minute,
  success,
  errors: [],
  steps: null,
  browser: null,
  details_compacted: null,
  created_at: t(minute),
});

const rowsOf = (db: Db) =>
  db
    .selectFrom('monitor_environment_latest_runs')
    .select([
      'monitor_id',
      'environment',
      'last_run_id',
      'last_run_status',
      'last_run_at',
      'last_run_created_at',
      'last_success_at',
      'last_failure_at',
    ])
    .orderBy('monitor_id')
    .orderBy('environment')
    .execute();

/** The row `run` makes, with the newest success and failure at the minutes given. */
const rowOf = (latest: RunRow, success: number | null, failure: number | null) => ({
  monitor_id: latest.monitor_id,
  environment: latest.environment,
  last_run_id: latest.id,
  last_run_status: latest.status,
  last_run_at: latest.created_at,
  last_run_created_at: latest.created_at,
  last_success_at: success === null ? null : t(success),
  last_failure_at: failure === null ? null : t(failure),
});

const inTransaction = (db: Db, runs: RunRow[]) =>
  db.transaction().execute((tx) => recordLatestRuns(tx, runs));

describe.each(databaseEngines)('latest runs updated first on $name', (engine) => {
  it('keeps the newest run, success and failure by creation, for new and existing rows in one batch', async () => {
    const { db, dispose } = await engine.open();
    try {
      for (const id of ['mon-a', 'mon-b', 'mon-c']) await insertMonitorRow(db, id);
      await inTransaction(db, [run('mon-b', 10, true), run('mon-a', 10, false)]);
      // mon-a and mon-b exist (an update each), mon-c and mon-a's staging are new (inserts); mon-b's run is older
      // than the one recorded and changes nothing but its failure, which it is the first of.
      await inTransaction(db, [
        run('mon-c', 20, true),
        run('mon-a', 20, true),
        run('mon-b', 5, false),
        run('mon-a', 15, false, 'staging'),
      ]);
      expect(await rowsOf(db)).toEqual([
        rowOf(run('mon-a', 20, true), 20, 10),
        rowOf(run('mon-a', 15, false, 'staging'), null, 15),
        rowOf(run('mon-b', 10, true), 10, 5),
        rowOf(run('mon-c', 20, true), 20, null),
      ]);
      // Two runs of one row in one batch are refused, as the upsert always refused them.
      await expect(inTransaction(db, [run('mon-a', 30, true), run('mon-a', 31, true)])).rejects.toThrow();
    } finally {
      await dispose();
    }
  });
});

describe('latest runs updated first on PostgreSQL', () => {
  it('logs no tuple lock for a row that exists', async () => {
    const { db, dispose } = await databaseEngines[0]!.open();
    try {
      await insertMonitorRow(db, 'mon-a');
      await inTransaction(db, [run('mon-a', 10, true)]);
      await sql`create extension if not exists pg_walinspect`.execute(db);
      const { rows: from } = await sql<{
        lsn: string;
      }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db);
      await inTransaction(db, [run('mon-a', 11, true)]);
      const { rows: to } = await sql<{
        lsn: string;
      }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db);
      // pg_walinspect reads flushed WAL only; the WAL writer flushes a commit made without waiting for it.
      for (;;) {
        const { rows: flushed } = await sql<{ ok: boolean }>`
          select pg_current_wal_flush_lsn() >= ${to[0]!.lsn}::pg_lsn as ok`.execute(db);
        if (flushed[0]!.ok) break;
        await sql`select pg_sleep(0.05)`.execute(db);
      }
      const { rows } = await sql<{ record_type: string }>`
        select record_type from pg_get_wal_records_info(${from[0]!.lsn}::pg_lsn, ${to[0]!.lsn}::pg_lsn)
        where resource_manager = 'Heap' and block_ref like '%/' || (select oid from pg_database
            where datname = current_database()) || '/'
          || pg_relation_filenode('monitor_environment_latest_runs') || ' %'`.execute(db);
      expect(rows.map((r) => r.record_type)).toEqual(['HOT_UPDATE']);
      expect((await rowsOf(db))[0]).toMatchObject({ last_run_id: 'run_mon-a_production_11' });
    } finally {
      await dispose();
    }
  });

  it('upserts when another writer commits the same new row first', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
    try {
      await insertMonitorRow(db, 'mon-a');
      let releaseFirst: () => void = () => undefined;
      const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstWrote: () => void = () => undefined;
      const firstWroteRow = new Promise<void>((resolve) => (firstWrote = resolve));
      // The first writer inserts the new row and holds its transaction open.
      const first = db.transaction().execute(async (tx) => {
        await recordLatestRuns(tx, [run('mon-a', 10, false)]);
        firstWrote();
        await firstHolds;
      });
      await firstWroteRow;
      // The second finds no row to update and waits on the first's key with its plain insert.
      const second = inTransaction(db, [run('mon-a', 20, true)]);
      for (;;) {
        const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        if (rows[0]!.waiting > 0) break;
        await sql`select pg_sleep(0.05)`.execute(db);
      }
      releaseFirst();
      await first;
      // Its insert is refused (23505); from its savepoint it upserts, and both runs count.
      await second;
      expect(await rowsOf(db)).toEqual([rowOf(run('mon-a', 20, true), 20, 10)]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
