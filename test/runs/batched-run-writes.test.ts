import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONITOR_SCHEMA_VERSION } from '../../hub/src/contract/monitor-definition.js';
import type { Db } from '../../hub/src/db/database.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { upsertMonitorRow } from '../../hub/src/monitors/monitor.repository.js';
import type { ExecutedScheduledResult, RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import {
  insertFinishedScheduledRuns,
  resultColumns,
  type FinishedScheduledRun,
  type RunResult,
} from '../../hub/src/runs/run.repository.js';
import { createScheduledRunWriter } from '../../hub/src/worker/scheduled-run-writer.js';
import { databaseEngines } from '../harness/engines.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { insertMonitorRow } from './run-rows.js';

const MINUTE = Date.parse('2026-03-02T10:15:00Z');
const MONITORS = Array.from({ length: 30 }, (_, i) => `mon-${String(i).padStart(2, '0')}`);

/** A hook that remembers which monitors each call was given, in order. */
function callsRecorded() {
  const calls: string[][] = [];
  const hook: RunFinishedHook = {
    name: 'calls-recorded',
    onRunsFinished(_tx, runs) {
      calls.push(runs.map((run) => run.monitor_id));
      return Promise.resolve();
    },
  };
  return { hook, calls };
}

let serial = 0;
function executed(monitorId: string, slotMs: number, success = true): ExecutedScheduledResult {
  serial += 1;
  const result: RunResult = {
    success,
    errors: success ? [] : ['check: status EQUAL 200, got 503'],
    steps: [],
    completedAt: new Date(slotMs + 120),
    durationMs: 100 + serial,
  };
  return {
    run: {
      organization_id: 'acme',
      id: `run-${serial}`,
      monitor_id: monitorId,
      execution_group_id: `grp-${serial}`,
      location: 'default',
      environment: 'production',
      schedule_slot: String(slotMs),
      started_at: new Date(slotMs + 20),
    },
    result,
  };
}

describe.each(databaseEngines)('scheduled results written in batches, on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
    for (const id of MONITORS)
      await db.transaction().execute((tx) =>
        upsertMonitorRow(tx, {
          organization_id: 'acme',
          id,
          project: 'shop',
          environment: 'production',
          name: id,
          schema_version: MONITOR_SCHEMA_VERSION,
          definition: jsonColumn({ name: id }),
          created_at: new Date(MINUTE),
          updated_at: new Date(MINUTE),
        }),
      );
  });
  afterAll(() => dispose());

  it('writes the results of many monitors finished together in one transaction, each counted once', async () => {
    const { hook, calls } = callsRecorded();
    const writer = createScheduledRunWriter(db, [rollupHook, hook]);
    // Handed over in reverse: the hooks get them in lock order (organization, then monitor).
    const results = [...MONITORS].reverse().map((id) => executed(id, MINUTE + 1_000, id !== 'mon-07'));
    const rows = await Promise.all(results.map((entry) => writer.record(entry)));

    expect(calls).toEqual([MONITORS]);
    expect(rows.map((row) => row?.id)).toEqual(results.map((entry) => entry.run.id));
    expect(rows.find((row) => row?.monitor_id === 'mon-07')).toMatchObject({ status: 'failed' });
    const minutes = await db
      .selectFrom('run_rollups_minute')
      .select(['monitor_id', 'run_count', 'failure_count'])
      .orderBy('monitor_id')
      .execute();
    expect(minutes).toEqual(
      MONITORS.map((id) => ({ monitor_id: id, run_count: 1, failure_count: id === 'mon-07' ? 1 : 0 })),
    );
    for (const table of ['run_rollups_hour', 'run_rollups_day'] as const) {
      const { rows: tier } = await sql<{ environment: string; runs: number; monitors: number }>`
        select environment, sum(run_count)::int as runs, count(distinct monitor_id)::int as monitors
        from ${sql.table(table)} group by environment order by environment`.execute(db);
      expect(tier).toEqual([
        { environment: '', runs: 30, monitors: 30 },
        { environment: 'production', runs: 30, monitors: 30 },
      ]);
    }
    const latest = await db
      .selectFrom('monitor_latest_runs')
      .select(['monitor_id', 'last_run_id'])
      .where('environment', '=', '')
      .orderBy('monitor_id')
      .execute();
    expect(latest.map((row) => row.last_run_id)).toEqual([...results].reverse().map((entry) => entry.run.id));
  });

  it('puts a second run of one monitor in the next batch, and writes a slot delivered twice once', async () => {
    const { hook, calls } = callsRecorded();
    const writer = createScheduledRunWriter(db, [rollupHook, hook]);
    const first = executed('mon-00', MINUTE + 20_000);
    const second = executed('mon-00', MINUTE + 40_000);
    const again = { ...first, run: { ...first.run, id: 'run-again' } };
    const other = executed('mon-01', MINUTE + 20_000);
    const rows = await Promise.all([first, second, again, other].map((entry) => writer.record(entry)));

    expect(calls).toEqual([['mon-00', 'mon-01'], ['mon-00']]);
    expect(rows.map((row) => row?.id)).toEqual([first.run.id, second.run.id, undefined, other.run.id]);
    const minute = await db
      .selectFrom('run_rollups_minute')
      .select('run_count')
      .where('monitor_id', '=', 'mon-00')
      .executeTakeFirstOrThrow();
    expect(minute.run_count).toBe(3);
  });

  it('writes a batch as soon as flushAt results wait, and the ones after it in the next', async () => {
    // With flushAt 2 the write starts when 2 wait, not when the window ends; results that finish during it go
    // in the next.
    const { hook, calls } = callsRecorded();
    const writer = createScheduledRunWriter(db, [hook], { flushAt: 2 });
    const results = MONITORS.slice(10, 15).map((id) => executed(id, MINUTE + 60_000));
    const rows = await Promise.all(results.map((entry) => writer.record(entry)));

    expect(calls).toEqual([MONITORS.slice(10, 12), MONITORS.slice(12, 15)]);
    expect(rows.map((row) => row?.id)).toEqual(results.map((entry) => entry.run.id));
  });

  it('gathers the results that finish after a write into the next batch until flushAt wait', async () => {
    // RUN_WRITE_GATHER_MS (docs/adr/0082): a result that finishes while a batch is written does not go alone
    // as soon as it commits; the next batch gathers until `gatherMs` after the last one started, or until a full
    // batch waits, which ends the gathering at once (with a gathering this long, else the test times out).
    const [a, b, c, d, e] = MONITORS.slice(20, 25).map((id) => executed(id, MINUTE + 100_000));
    if (a === undefined || b === undefined || c === undefined || d === undefined || e === undefined)
      throw new Error('five monitors');
    const calls: string[][] = [];
    let during: ReturnType<typeof writer.record> | undefined;
    const hook: RunFinishedHook = {
      name: 'records-one-more',
      onRunsFinished(_tx, runs) {
        calls.push(runs.map((run) => run.monitor_id));
        during ??= writer.record(c);
        return Promise.resolve();
      },
    };
    const writer = createScheduledRunWriter(db, [hook], { flushAt: 3, gatherMs: 1_000_000 });
    const first = await Promise.all([writer.record(a), writer.record(b)]);
    expect(first.map((row) => row?.id)).toEqual([a.run.id, b.run.id]);
    expect(calls).toEqual([[a.run.monitor_id, b.run.monitor_id]]);
    const rest = await Promise.all([during, writer.record(d), writer.record(e)]);

    expect(calls).toEqual([
      [a.run.monitor_id, b.run.monitor_id],
      [c.run.monitor_id, d.run.monitor_id, e.run.monitor_id],
    ]);
    expect(rest.map((row) => row?.id)).toEqual([c.run.id, d.run.id, e.run.id]);
  });

  it('writes a batch the database refuses one result at a time: only the refused run fails', async () => {
    // The database's own refusal of NUL, whenever a write holds a run of mon-03.
    const refusing: RunFinishedHook = {
      name: 'refusing-mon-03',
      async onRunsFinished(tx, runs) {
        if (runs.some((run) => run.monitor_id === 'mon-03' && run.success === true))
          await sql`select chr(0)`.execute(tx);
      },
    };
    const writer = createScheduledRunWriter(db, [refusing]);
    const results = ['mon-02', 'mon-03', 'mon-04'].map((id) => executed(id, MINUTE + 60_000));
    const rows = await Promise.all(results.map((entry) => writer.record(entry)));

    expect(rows.map((row) => [row?.monitor_id, row?.status])).toEqual([
      ['mon-02', 'completed'],
      ['mon-03', 'failed'],
      ['mon-04', 'completed'],
    ]);
    expect(rows[1]?.errors).toEqual([
      'run failed by the system: its result could not be stored (the database refused it: null character not permitted (SQLSTATE 54000))',
    ]);
  });

  it('records nothing for a monitor deleted while its slot ran, and writes the rest of its batch', async () => {
    // Slots are queued ahead of their time: a monitor may be gone when its result comes to be written.
    const { hook, calls } = callsRecorded();
    const writer = createScheduledRunWriter(db, [rollupHook, hook]);
    const results = [executed('mon-05', MINUTE + 80_000), executed('mon-deleted', MINUTE + 80_000)];
    const rows = await Promise.all(results.map((entry) => writer.record(entry)));

    expect(rows.map((row) => row?.monitor_id)).toEqual(['mon-05', undefined]);
    expect(calls.at(-1)).toEqual(['mon-05']);
  });
});

describe('a slot delivered twice at the same moment, on PostgreSQL', () => {
  const engine = databaseEngines.find((candidate) => candidate.name === 'PostgreSQL');
  if (engine === undefined) throw new Error('the PostgreSQL engine is listed in test/harness/engines.ts');

  it('records it once: the insert that meets the other uncommitted row records nothing, its transaction goes on', async () => {
    const { db, dispose } = await engine.open();
    try {
      await insertMonitorRow(db);
      const slotMs = Math.floor(Date.now() / 60_000) * 60_000;
      const finished = (id: string): FinishedScheduledRun => ({
        organization_id: 'acme',
        id,
        monitor_id: 'mon-1',
        execution_group_id: `grp-${id}`,
        location: 'default',
        environment: 'production',
        schedule_slot: String(slotMs),
        started_at: new Date(slotMs + 20),
        ...resultColumns({
          success: true,
          errors: [],
          steps: [],
          completedAt: new Date(slotMs + 50),
          durationMs: 30,
        }),
      });
      let commitFirst = () => {};
      const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
      let firstInserted = () => {};
      const firstHasInserted = new Promise<void>((resolve) => (firstInserted = resolve));
      const first = db.transaction().execute(async (tx) => {
        const rows = await insertFinishedScheduledRuns(tx, [finished('run-first')]);
        firstInserted();
        await firstMayCommit;
        return rows.map((row) => row.id);
      });
      await firstHasInserted;
      const second = db.transaction().execute(async (tx) => {
        const rows = await insertFinishedScheduledRuns(tx, [finished('run-second')]);
        const { rows: runs } = await sql<{ id: string }>`select id from runs`.execute(tx);
        return { inserted: rows.map((row) => row.id), runs: runs.map((run) => run.id) };
      });
      // The second insert waits on the slot key for the first transaction's row: the race, not a later delivery.
      for (;;) {
        const { rows } = await sql<{ waiting: string }>`select count(*) as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        if (Number(rows[0]?.waiting) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      commitFirst();
      expect(await first).toEqual(['run-first']);
      expect(await second).toEqual({ inserted: [], runs: ['run-first'] });
    } finally {
      await dispose();
    }
  });
});
