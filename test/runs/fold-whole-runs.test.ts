import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { accountedSlots } from '../../hub/src/ledger/slot-gap.repository.js';
import { runsInWindow } from '../../hub/src/notifications/run-history.repository.js';
import { compactionCandidates, compactPassingRuns } from '../../hub/src/runs/run-compaction.repository.js';
import { foldCompactedRuns } from '../../hub/src/runs/run-fold.repository.js';
import { databaseEngines } from '../harness/engines.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { HOUR, insertRuns, MINUTE, NOW, PASSES_AROUND_FAILURES, START } from './fold-fixtures.js';
import { monitorAgainst, type Target } from './run-fixtures.js';
import { freshDatabaseWithMonitor } from './run-rows.js';

// With folds on, passing runs stay whole until the fold takes them and compacts their steps as it folds them: the
// compaction's update of each passing run is not written (docs/adr/0066-fold-whole-passing-runs.md).
/** Where RUN_FOLD_AFTER_MINUTES 1440 puts the fold's cutoff at NOW: the start of the hour a day ago. */
const FOLD_BEFORE = new Date(Math.floor((NOW.getTime() - 1440 * MINUTE) / HOUR) * HOUR);
/** RUN_DETAILS_KEEP_MINUTES 60. */
const DETAILS_BEFORE = new Date(NOW.getTime() - 60 * MINUTE);

const compactLeavingToFold = (db: Db, keepLatest: number) =>
  compactPassingRuns(db, {
    before: DETAILS_BEFORE,
    cursor: undefined,
    keepLatest,
    batch: 500,
    leaveToFold: true,
  });

/** Folds whole runs as the scheduler does, batch after batch, until a batch neither folds nor marks a run. */
async function foldWholeRuns(db: Db, keepLatest: number, detailsBefore = DETAILS_BEFORE): Promise<number> {
  let folded = 0;
  for (;;) {
    const batch = await foldCompactedRuns(db, {
      before: FOLD_BEFORE,
      monitors: 50,
      wholeRuns: { keepLatest, detailsBefore },
    });
    folded += batch.runs;
    if (batch.folds === 0 && batch.kept === 0) return folded;
  }
}

const rowsById = async (db: Db) =>
  new Map(
    (await db.selectFrom('runs').select(['id', 'details_compacted']).execute()).map((row) => [
      row.id,
      row.details_compacted,
    ]),
  );

describe.each(databaseEngines)('folding whole passing runs on $name', (engine) => {
  const database = freshDatabaseWithMonitor(engine);
  let db: Db;
  beforeEach(() => {
    db = database();
  });

  it('leaves passing runs unwritten by the compaction, then folds those it would have compacted', async () => {
    const ids = await insertRuns(db, PASSES_AROUND_FAILURES);
    expect((await compactLeavingToFold(db, 3)).compacted).toBe(0);
    expect([...(await rowsById(db)).values()].every((compacted) => compacted === null)).toBe(true);

    expect(await foldWholeRuns(db, 3)).toBe(3);
    const rows = await rowsById(db);
    // The first run, the two failures, the pass after them and the three latest stay rows, as with the compaction;
    // the changes of outcome are marked kept so no later fold looks at them again.
    expect([...rows.keys()].sort()).toEqual([0, 2, 3, 4, 7, 8, 9].map((i) => ids[i]).sort());
    expect([0, 4, 7].map((i) => rows.get(ids[i] ?? ''))).toEqual([false, false, null]);
    const folds = await db.selectFrom('run_folds').select(['run_ids', 'slots', 'steps']).execute();
    expect(folds).toEqual([
      {
        run_ids: [1, 5, 6].map((i) => ids[i]?.slice(4)),
        slots: [1, 5, 6].map((i) => (5 + i) * MINUTE),
        // The steps as the compaction keeps them: node, type, status and duration (an array, docs/adr/0080).
        steps: [1, 5, 6].map(() => [['get', 'HTTP_REQUEST', 'passed', 12]]),
      },
    ]);
  });

  it('folds no whole run younger than RUN_DETAILS_KEEP_MINUTES, nor any without the fold of whole runs', async () => {
    await insertRuns(db, ['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(await foldWholeRuns(db, 1, new Date(START))).toBe(0);
    expect((await foldCompactedRuns(db, { before: FOLD_BEFORE, monitors: 50 })).runs).toBe(0);
    expect((await rowsById(db)).size).toBe(5);
  });

  it('counts the slots of runs folded whole as recorded and answers the rules with them', async () => {
    const ids = await insertRuns(db, ['pass', 'pass', 'pass', 'fail']);
    expect(await foldWholeRuns(db, 1)).toBe(2);
    const slot = { organizationId: 'acme', monitorId: 'mon-1', location: 'default', slotMs: START + MINUTE };
    expect(await accountedSlots(db, [slot, { ...slot, slotMs: START + 2 * MINUTE }])).toEqual([true, true]);
    await db.transaction().execute(async (tx) => {
      const window = await runsInWindow(tx, 'acme', 'mon-1', new Date(START), new Date(START + HOUR));
      expect(window.map((run) => run.id).sort()).toEqual([...ids].sort());
    });
  });

  it('still compacts the passing runs a fold cannot hold (ids that are not a UUID)', async () => {
    await insertRuns(db, ['pass', 'pass', 'pass'], { id: (i) => `run_legacy-${i}` });
    expect((await compactLeavingToFold(db, 1)).compacted).toBe(1);
    expect(await foldWholeRuns(db, 1)).toBe(0);
    expect([...(await rowsById(db)).values()]).toEqual(expect.arrayContaining([false, true, null]));
  });
});

describe('the compaction with folds on (PostgreSQL)', () => {
  const engine = databaseEngines.find((candidate) => candidate.name === 'PostgreSQL');
  if (engine === undefined) throw new Error('the PostgreSQL engine is listed in test/harness/engines.ts');
  const database = freshDatabaseWithMonitor(engine);

  /** The indexes of `runs` a batch's query walks for its runs (a partition's index under its parent's name). */
  const indexesWalked = (db: Db, leaveToFold: boolean) =>
    db.transaction().execute(async (tx) => {
      // Whether the planner can prove the batch's runs are in an index, not which it prefers for a few rows.
      await sql`set local enable_seqscan = off`.execute(tx);
      const query = compactionCandidates({
        before: DETAILS_BEFORE,
        cursor: undefined,
        keepLatest: 1,
        batch: 500,
        leaveToFold,
      });
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(tx);
      const names = rows.flatMap((row) =>
        [...row['QUERY PLAN'].matchAll(/ using (\S+) on \S+ c(?:_\d+)? /g)].map((match) => match[1] ?? ''),
      );
      const { rows: parents } = await sql<{ name: string }>`
        select distinct coalesce(p.relname, c.relname) as name from pg_class c
          left join pg_inherits i on i.inhrelid = c.oid left join pg_class p on p.oid = i.inhparent
        where c.relname = any(${names}::text[]) order by 1`.execute(tx);
      return parents.map((row) => row.name);
    });

  it('walks only the runs a fold cannot hold, not the runs it leaves whole for the fold', async () => {
    const db = database();
    await insertRuns(db, ['pass', 'pass', 'pass']);
    await insertRuns(db, ['pass', 'pass'], { id: (i) => `run_legacy-${i}`, start: START + 10 * MINUTE });
    await sql`analyze runs`.execute(db);
    expect(await indexesWalked(db, true)).toEqual(['runs_details_unfoldable']);
    expect(await indexesWalked(db, false)).toEqual(['runs_details_uncompacted']);
    expect((await compactLeavingToFold(db, 1)).examined).toBe(2);
  });
});

describe('a run folded whole over the API', () => {
  let hub: TestHub;
  let compacted: string[];
  let whole: string[];
  beforeAll(async () => {
    hub = await startTestHub();
    const saved = await hub.request('PUT', '/monitor/mon-1', {
      body: monitorAgainst({ url: 'http://127.0.0.1:9' } as Target),
    });
    expect(saved.status).toBeLessThan(300);
    // An hour three days ago compacted first, then folded (docs/adr/0061); an hour two days ago folded whole.
    compacted = await insertRuns(hub.db, ['pass', 'pass', 'pass'], { start: START - 24 * HOUR });
    await compactPassingRuns(hub.db, {
      before: DETAILS_BEFORE,
      cursor: undefined,
      keepLatest: 1,
      batch: 500,
    });
    expect((await foldCompactedRuns(hub.db, { before: FOLD_BEFORE, monitors: 50 })).runs).toBe(1);
    whole = await insertRuns(hub.db, ['pass', 'pass', 'pass']);
    // The first hour's last run, no longer the latest, and the second hour's first two.
    expect(await foldWholeRuns(hub.db, 1)).toBe(3);
  });
  afterAll(() => hub.close());

  it('answers GET /runs/{id} of a run folded whole as of a run compacted and then folded', async () => {
    const answer = async (id: string | undefined) => {
      const response = await hub.request('GET', `/runs/${id ?? ''}`, { as: 'acmeViewer' });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: Record<string, unknown> }).data;
    };
    const folded = await answer(compacted[1]);
    const foldedWhole = await answer(whole[1]);
    expect(Object.keys(foldedWhole).sort()).toEqual(Object.keys(folded).sort());
    for (const field of [
      'status',
      'success',
      'errors',
      'steps',
      'durationMs',
      'detailsCompacted',
      'triggeredBy',
    ])
      expect(foldedWhole[field]).toEqual(folded[field]);
    expect(foldedWhole).toMatchObject({ id: whole[1], detailsCompacted: true });
  });
});
