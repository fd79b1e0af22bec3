import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSchema } from '../../hub/src/contract/run.js';
import type { Db } from '../../hub/src/db/database.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { accountedSlots, recordGaps } from '../../hub/src/ledger/slot-gap.repository.js';
import { latestRunsInLocation, runsInWindow } from '../../hub/src/notifications/run-history.repository.js';
import { insertFinishedScheduledRuns, insertScheduledRun } from '../../hub/src/runs/run.repository.js';
import { compactRunDetails } from '../../hub/src/scheduling/run-details-compaction.js';
import { foldPassingRuns } from '../../hub/src/scheduling/run-fold.js';
import { databaseEngines } from '../harness/engines.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  HOUR,
  insertRuns as insertRunsOfMonitor,
  MINUTE,
  NOW,
  PASSES_AROUND_FAILURES,
  scheduledRunOf,
  START,
} from '../runs/fold-fixtures.js';
import { monitorAgainst, type Target } from '../runs/run-fixtures.js';
import { freshDatabaseWithMonitor } from '../runs/run-rows.js';

// Compacted passing runs of hours that ended more than RUN_FOLD_AFTER_MINUTES ago are folded into one row per
// monitor, location and hour, and deleted from `runs` (docs/adr/0061-fold-old-passing-runs.md).
const insertRuns = (db: Db, outcomes: ReadonlyArray<'pass' | 'fail'>, start = START) =>
  insertRunsOfMonitor(db, outcomes, { start });

const clock = { now: () => NOW };
const compactThenFold = async (db: Db, keepLatest = 3) => {
  await compactRunDetails({ db, clock, keepLatest, keepMinutes: 60 });
  return foldPassingRuns({ db, clock, foldAfterMinutes: 1440 });
};
const rowIds = async (db: Db) =>
  new Set((await db.selectFrom('runs').select('id').execute()).map((row) => row.id));

describe.each(databaseEngines)('folding old passing runs on $name', (engine) => {
  const database = freshDatabaseWithMonitor(engine);
  let db: Db;
  beforeEach(() => {
    db = database();
  });

  it('folds the compacted runs into one row an hour; keeps failures, changes of outcome and the latest', async () => {
    const ids = await insertRuns(db, PASSES_AROUND_FAILURES);
    const { folded } = await compactThenFold(db);
    expect(folded).toBe(3);
    const kept = await rowIds(db);
    // The first run, the two failures, the pass after them and the three latest stay rows.
    expect([...kept].sort()).toEqual([0, 2, 3, 4, 7, 8, 9].map((i) => ids[i]).sort());
    const folds = await db.selectFrom('run_folds').select(['run_ids', 'slots']).execute();
    expect(folds).toEqual([
      { run_ids: [1, 5, 6].map((i) => ids[i]?.slice(4)), slots: [1, 5, 6].map((i) => (5 + i) * MINUTE) },
    ]);
    // Folding again finds nothing: every run is a row or in a fold, never both.
    expect((await compactThenFold(db)).folded).toBe(0);
  });

  it('folds only hours that ended more than the setting ago', async () => {
    await insertRuns(
      db,
      Array.from({ length: 10 }, () => 'pass' as const),
      NOW.getTime() - 20 * HOUR,
    );
    expect((await compactThenFold(db, 1)).folded).toBe(0);
    expect((await foldPassingRuns({ db, clock, foldAfterMinutes: 60 })).folded).toBe(8);
  });

  it('counts a folded slot as recorded and never records it again', async () => {
    const ids = await insertRuns(db, ['pass', 'pass', 'pass', 'pass']);
    await compactThenFold(db, 1);
    const folded = START + 1 * MINUTE;
    const slot = { organizationId: 'acme', monitorId: 'mon-1', location: 'default', slotMs: folded };
    expect(await rowIds(db)).not.toContain(ids[1]);
    expect(await accountedSlots(db, [slot, { ...slot, slotMs: START - MINUTE }])).toEqual([true, false]);
    expect(await recordGaps(db, [{ ...slot, reason: 'lost' }])).toBe(0);
    const late = scheduledRunOf(folded);
    expect(
      await insertFinishedScheduledRuns(db, [
        {
          ...late,
          started_at: new Date(folded),
          status: 'completed',
          success: true,
          errors: jsonColumn([]),
          steps: jsonColumn([]),
          completed_at: new Date(folded + 5),
          duration_ms: 5,
        },
      ]),
    ).toEqual([]);
    expect(
      await insertScheduledRun(db, {
        ...late,
        status: 'pending',
        triggered_by: 'schedule',
        errors: jsonColumn([]),
      }),
    ).toBeUndefined();
    expect((await db.selectFrom('runs').select('id').execute()).length).toBe(2);
  });

  it('writes nothing of a batch that fails: its runs stay rows and no fold is half written', async () => {
    const ids = await insertRuns(db, ['pass', 'pass', 'pass', 'pass', 'pass']);
    await compactRunDetails({ db, clock, keepLatest: 1, keepMinutes: 60 });
    // A fold row already holding the key the batch's fold would take: the batch's insert fails mid-statement.
    const hour = new Date(Math.floor(START / HOUR) * HOUR);
    await sql`insert into run_folds (organization_id, monitor_id, location, environment, hour, first_slot, run_ids,
      group_ids, slots, started, completed, durations, steps)
      values ('acme', 'mon-1', 'default', 'production', ${hour}, ${6 * MINUTE}, '{}', '{}', '{}', '{}', '{}', '{}',
        '[]')`.execute(db);
    await expect(foldPassingRuns({ db, clock, foldAfterMinutes: 1440 })).rejects.toThrow();
    expect(await rowIds(db)).toEqual(new Set(ids));
    expect((await db.selectFrom('run_folds').select('first_slot').execute()).length).toBe(1);
  });

  it('answers the rules with folded passes: the latest runs and a window', async () => {
    const ids = await insertRuns(db, ['pass', 'fail', 'pass', 'pass', 'pass', 'fail']);
    expect((await compactThenFold(db, 1)).folded).toBe(2);
    await db.transaction().execute(async (tx) => {
      const latest = await latestRunsInLocation(tx, 'acme', 'mon-1', 'default', 4);
      expect(latest.map((run) => [run.id, run.success, run.durationMs])).toEqual([
        [ids[5], false, 12.5],
        [ids[4], true, 12.5],
        [ids[3], true, 12.5],
        [ids[2], true, 12.5],
      ]);
      const window = await runsInWindow(tx, 'acme', 'mon-1', new Date(START), new Date(START + HOUR));
      expect(window.map((run) => run.id).sort()).toEqual([...ids].sort());
    });
  });
});

describe('a folded run over the API', () => {
  let hub: TestHub;
  let ids: string[];
  let beforeFold: unknown;
  beforeAll(async () => {
    hub = await startTestHub();
    const saved = await hub.request('PUT', '/monitor/mon-1', {
      body: monitorAgainst({ url: 'http://127.0.0.1:9' } as Target),
    });
    expect(saved.status).toBeLessThan(300);
    ids = await insertRuns(hub.db, ['pass', 'pass', 'pass', 'pass']);
    await compactRunDetails({ db: hub.db, clock, keepLatest: 1, keepMinutes: 60 });
    beforeFold = await (await hub.request('GET', `/runs/${ids[1]}`, { as: 'acmeViewer' })).json();
    expect((await foldPassingRuns({ db: hub.db, clock, foldAfterMinutes: 1440 })).folded).toBe(2);
  });
  afterAll(() => hub.close());

  it('answers GET /runs/{id} of a folded run as it answered once the run was compacted', async () => {
    const response = await hub.request('GET', `/runs/${ids[1]}`, { as: 'acmeViewer' });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { data: unknown };
    expect(answer).toEqual(beforeFold);
    expect(runSchema.parse(answer.data)).toMatchObject({ id: ids[1], success: true, detailsCompacted: true });
  });

  it('lists the runs kept as rows, not the folded ones', async () => {
    const response = await hub.request('GET', '/runs/?monitorId=mon-1', { as: 'acmeViewer' });
    const { data } = (await response.json()) as { data: Array<{ id: string }> };
    expect(data.map((run) => run.id)).toEqual([ids[3], ids[0]]);
  });

  it('answers 404 for a run id no row nor fold holds', async () => {
    const response = await hub.request('GET', `/runs/run_${randomUUID()}`, { as: 'acmeViewer' });
    expect(response.status).toBe(404);
  });
});
