import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { forgetFoldHoursBefore } from '../../hub/src/runs/run-fold.repository.js';
import { insertFinishedScheduledRuns } from '../../hub/src/runs/run.repository.js';
import { compactRunDetails } from '../../hub/src/scheduling/run-details-compaction.js';
import { foldPassingRuns } from '../../hub/src/scheduling/run-fold.js';
import { databaseEngines } from '../harness/engines.js';
import { HOUR, insertRuns, MINUTE, NOW, scheduledRunOf, START } from './fold-fixtures.js';
import { freshDatabaseWithMonitor, insertMonitorRow } from './run-rows.js';

// The fold finds its candidates through `run_fold_hours`, one row per monitor, location and hour with compacted
// runs, instead of an index entry per compacted run (docs/adr/0083-fold-hours-instead-of-candidate-entries.md).
const clock = { now: () => NOW };
const fold = (db: Db) => foldPassingRuns({ db, clock, foldAfterMinutes: 1440 });
const compact = (db: Db) => compactRunDetails({ db, clock, keepLatest: 1, keepMinutes: 60 });
const foldHours = async (db: Db) =>
  (
    await sql<{ hour: Date; monitor_id: string }>`
      select hour, monitor_id from run_fold_hours order by hour, monitor_id`.execute(db)
  ).rows.map((row) => `${row.monitor_id}@${(row.hour.getTime() - START + 5 * MINUTE) / HOUR}`);
const compactedRuns = async (db: Db) =>
  Number(
    (await sql<{ n: string }>`select count(*) as n from runs where details_compacted`.execute(db)).rows[0]?.n,
  );

describe.each(databaseEngines)('the hours left to fold on $name', (engine) => {
  const database = freshDatabaseWithMonitor(engine);

  it('records one row a monitor and hour as runs are compacted, and the fold folds them all and deletes it', async () => {
    const db = database();
    await insertMonitorRow(db, 'mon-2');
    await insertRuns(db, ['pass', 'pass', 'pass', 'pass']);
    await insertRuns(db, ['pass', 'pass', 'pass'], { start: START + HOUR });
    await db
      .updateTable('runs')
      .set({ monitor_id: 'mon-2' })
      .where('created_at', '>=', new Date(START + HOUR))
      .execute();
    await compact(db);
    // Each monitor's first run (no previous run) and its latest stay whole: two runs of mon-1, one of mon-2.
    expect(await compactedRuns(db)).toBe(3);
    expect(await foldHours(db)).toEqual(['mon-1@0', 'mon-2@1']);

    expect((await fold(db)).folded).toBe(3);
    expect(await compactedRuns(db)).toBe(0);
    expect(await foldHours(db)).toEqual([]);
    // Every compacted run is in a fold: its id among the folds' ids.
    const folded = await db.selectFrom('run_folds').select('run_ids').execute();
    expect(folded.flatMap((row) => row.run_ids)).toHaveLength(3);
  });

  it('deletes an hour whose runs went otherwise and goes on to the next in the same pass', async () => {
    const db = database();
    await insertRuns(db, ['pass', 'pass', 'pass']);
    await insertRuns(db, ['pass', 'pass', 'pass'], { start: START + HOUR });
    await compact(db);
    expect(await foldHours(db)).toEqual(['mon-1@0', 'mon-1@1']);
    await db
      .deleteFrom('runs')
      .where('created_at', '<', new Date(START + HOUR))
      .execute();

    const pass = await fold(db);
    expect(pass).toEqual({ folded: 2, done: true });
    expect(await foldHours(db)).toEqual([]);
    expect(await compactedRuns(db)).toBe(0);
  });

  it('records the hour of a run compacted as it is inserted, once however many runs it has', async () => {
    const db = database();
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const run = (minute: number) => ({
      ...scheduledRunOf(hourStart + minute * MINUTE),
      started_at: new Date(hourStart + minute * MINUTE),
      completed_at: new Date(hourStart + minute * MINUTE + 5),
      duration_ms: 5,
      status: 'completed' as const,
      success: true,
      errors: jsonColumn([]),
      steps: jsonColumn([{ nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed', durationMs: 5 }]),
    });
    for (const minute of [0, 1, 2, 3])
      await insertFinishedScheduledRuns(db, [run(minute)], 'compact-unchanged');
    // The first run has no previous run and stays whole; the three after it are compacted, one row for the hour.
    expect(await compactedRuns(db)).toBe(3);
    const rows = await db.selectFrom('run_fold_hours').selectAll().execute();
    expect(rows).toEqual([
      { hour: new Date(hourStart), organization_id: 'acme', monitor_id: 'mon-1', location: 'default' },
    ]);
  });

  it('forgets the hours past the runs retention', async () => {
    const db = database();
    await insertRuns(db, ['pass', 'pass', 'pass']);
    await insertRuns(db, ['pass', 'pass', 'pass'], { start: START + HOUR });
    await compact(db);
    await forgetFoldHoursBefore(db, new Date(START + HOUR - 5 * MINUTE));
    expect(await foldHours(db)).toEqual(['mon-1@1']);
  });
});
