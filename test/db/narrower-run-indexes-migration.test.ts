import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { runPartitions } from '../../hub/src/runs/run-partitions.js';
import { insertScheduledRun, listRuns } from '../../hub/src/runs/run.repository.js';
import { databaseEngines } from '../harness/engines.js';
import { insertMonitorRow, scheduledRunRow } from '../runs/run-rows.js';

const runIndexes = async (db: Db) =>
  (
    await sql<{
      name: string;
    }>`select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'runs'::regclass order by 1`.execute(db)
  ).rows.map((r) => r.name);

/**
 * Slots of the next hour: the test writes with today's code at 0018 too, and today's insert probes the folds of
 * migration 0021 (docs/adr/0061) only for slots of an hour that is over.
 */
const HOUR_MS = 3_600_000;
const nextHour = new Date((Math.floor(Date.now() / HOUR_MS) + 1) * HOUR_MS);
const slot = (minute: number) => new Date(nextHour.getTime() + minute * 60_000);

/** The slot's run once more, as a second delivery of its job writes it: `undefined` when the slot key holds. */
const redeliver = (db: Db, minute: number) =>
  insertScheduledRun(db, { ...scheduledRunRow(slot(minute), `run_again_${minute}`) });

describe.each(databaseEngines)('migration 0019 (narrower run indexes) on $name', (engine) => {
  it('keeps every slot recorded once and the lists answering, down to 0018 and up again', async () => {
    const { db, dispose } = await engine.open();
    try {
      await runPartitions.ensure(db, nextHour);
      await insertMonitorRow(db);
      // At the latest migration: 0019's indexes and 0023's (0025 dropped 0021's candidates of the fold, ADR 0083).
      expect(await runIndexes(db)).toEqual([
        'runs_by_created',
        'runs_by_status',
        'runs_details_uncompacted',
        'runs_details_unfoldable',
        'runs_pk',
        'runs_schedule_slot_key',
        'runs_unfinished',
      ]);
      expect(await insertScheduledRun(db, scheduledRunRow(slot(1)))).toBeDefined();
      await insertScheduledRun(db, { ...scheduledRunRow(slot(2)), status: 'failed', success: false });
      expect(await redeliver(db, 1)).toBeUndefined();

      await migrateTo(db, '0018-notification-outbox');
      expect(await runIndexes(db)).toContain('runs_by_monitor');
      expect(await redeliver(db, 2)).toBeUndefined();
      expect(await insertScheduledRun(db, scheduledRunRow(slot(3)))).toBeDefined();

      await migrateToLatest(db);
      expect(await runIndexes(db)).not.toContain('runs_by_monitor');
      for (const minute of [1, 2, 3]) expect(await redeliver(db, minute)).toBeUndefined();
      const page = { page: 0, limit: 10 };
      const ids = async (filter: Parameters<typeof listRuns>[2]) =>
        (await listRuns(db, 'acme', filter, page)).rows.map((r) => r.id);
      const [first, second, third] = [1, 2, 3].map((minute) => `run_${slot(minute).getTime()}`);
      expect(await ids({ monitorId: 'mon-1' })).toEqual([third, second, first]);
      expect(await ids({ status: 'failed' })).toEqual([second]);
      expect(await ids({ status: 'completed' })).toEqual([third, first]);
    } finally {
      await dispose();
    }
  }, 180_000);
});
