import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSchema } from '../../hub/src/contract/run.js';
import type { Db } from '../../hub/src/db/database.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import * as migration from '../../hub/src/db/migrations/0017-run-details-compaction.js';
import { compactedSteps as compactedStepsSql } from '../../hub/src/runs/run-keep.repository.js';
import {
  compactRunDetails,
  startRunDetailsCompaction,
} from '../../hub/src/scheduling/run-details-compaction.js';
import { databaseEngines } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorAgainst, type Target } from '../runs/run-fixtures.js';
import { freshDatabaseWithMonitor, scheduledRunRow } from '../runs/run-rows.js';

// Passing runs lose their step details once older than RUN_DETAILS_KEEP_MINUTES, unless they are among
// the RUN_DETAILS_KEEP_LATEST newest of their monitor and location or a change of outcome (docs/adr/0050).
const NOW = new Date();
const MINUTE = 60_000;

/** What the runner stores for an HTTP step and an assertion step: request, response excerpt, timings, TLS. */
const detailedSteps = [
  {
    nodeId: 'get',
    type: 'HTTP_REQUEST',
    status: 'passed',
    startedAt: NOW.toISOString(),
    durationMs: 12,
    request: { method: 'GET', url: 'https://api.example.com/health' },
    response: { status: 200, bytes: 1500, excerpt: `{"status":"ok","padding":"${'x'.repeat(1000)}"}` },
    timings: { totalMs: 12, dnsMs: 1, connectMs: 2, tlsMs: 5, firstByteMs: 10 },
  },
  {
    nodeId: 'check',
    type: 'ASSERTION',
    status: 'passed',
    startedAt: NOW.toISOString(),
    durationMs: null,
    assertions: [
      { nodeId: 'get', subject: 'status', operator: 'EQUAL', expected: 200, actual: 200, passed: true },
    ],
  },
];
const compactedSteps = [
  { nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed', durationMs: 12 },
  { nodeId: 'check', type: 'ASSERTION', status: 'passed' },
];
/** The same steps as stored (docs/adr/0080): `[nodeId, type, status, durationMs]`, null for a field not there. */
const storedCompactedSteps = [
  ['get', 'HTTP_REQUEST', 'passed', 12],
  ['check', 'ASSERTION', 'passed', null],
];

/** Runs of mon-1 a minute apart from two hours ago, passing but for the outcomes given ('fail'). */
async function insertRuns(
  db: Db,
  outcomes: ReadonlyArray<'pass' | 'fail'>,
  options: { manual?: number } = {},
) {
  const start = NOW.getTime() - 120 * MINUTE;
  for (const [i, outcome] of outcomes.entries()) {
    const slot = new Date(start + i * MINUTE);
    await db
      .insertInto('runs')
      .values({
        ...scheduledRunRow(slot, `run_${i}`),
        ...(options.manual === i ? { triggered_by: 'manual' as const, schedule_slot: null } : {}),
        status: outcome === 'pass' ? 'completed' : 'failed',
        success: outcome === 'pass',
        steps: jsonColumn(detailedSteps),
        created_at: slot,
      })
      .execute();
  }
}

async function stepsById(db: Db): Promise<Record<string, unknown>> {
  const rows = await db.selectFrom('runs').select(['id', 'steps', 'details_compacted']).execute();
  return Object.fromEntries(rows.map((r) => [r.id, r.details_compacted === true ? 'compacted' : 'whole']));
}

const compaction = (db: Db, keepLatest = 3, keepMinutes = 60) => ({
  db,
  clock: { now: () => NOW },
  keepLatest,
  keepMinutes,
});

describe.each(databaseEngines)('run details compaction on $name', (engine) => {
  const database = freshDatabaseWithMonitor(engine);
  let db: Db;
  beforeEach(() => {
    db = database();
  });

  it('keeps the first run, failures, changes of outcome and the latest; compacts the other passing runs', async () => {
    //             0       1       2       3       4       5       6       7       8       9
    await insertRuns(db, ['pass', 'pass', 'fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass']);
    const { compacted } = await compactRunDetails(compaction(db));
    expect(compacted).toBe(3);
    expect(await stepsById(db)).toEqual({
      run_0: 'whole', // its monitor's first run: nothing before it to compare
      run_1: 'compacted',
      run_2: 'whole', // failed
      run_3: 'whole', // failed
      run_4: 'whole', // passed after a failure
      run_5: 'compacted',
      run_6: 'compacted',
      run_7: 'whole', // the three latest
      run_8: 'whole',
      run_9: 'whole',
    });
    const compactedRun = await db
      .selectFrom('runs')
      .select(['steps', 'success', 'status', 'errors'])
      .where('id', '=', 'run_5')
      .executeTakeFirstOrThrow();
    expect(compactedRun).toEqual({
      steps: storedCompactedSteps,
      success: true,
      status: 'completed',
      errors: [],
    });
    const failure = await db
      .selectFrom('runs')
      .select('steps')
      .where('id', '=', 'run_2')
      .executeTakeFirstOrThrow();
    expect(failure.steps).toEqual(detailedSteps);
  });

  it('keeps runs younger than the setting and manual runs, and compacts the latest once newer runs came', async () => {
    await insertRuns(db, ['pass', 'pass', 'pass', 'pass', 'pass'], { manual: 2 });
    // Two hours of runs, all younger than three hours: nothing to compact.
    expect((await compactRunDetails(compaction(db, 1, 180))).compacted).toBe(0);
    // Ten latest kept: nothing either, until newer runs come.
    expect((await compactRunDetails(compaction(db, 10))).compacted).toBe(0);
    expect((await compactRunDetails(compaction(db, 1))).compacted).toBe(2);
    expect(await stepsById(db)).toEqual({
      run_0: 'whole',
      run_1: 'compacted',
      run_2: 'whole', // triggered by hand
      run_3: 'compacted',
      run_4: 'whole', // the latest
    });
    expect((await compactRunDetails(compaction(db, 1))).compacted).toBe(0);
  });

  it('compacts in the background from the scheduler, and never when the setting is 0', async () => {
    await insertRuns(
      db,
      Array.from({ length: 30 }, () => 'pass' as const),
    );
    const log = pino({ level: 'silent' });
    expect(startRunDetailsCompaction({ ...compaction(db, 3, 0), log, intervalMs: 10 })).toBeUndefined();
    const periodic = startRunDetailsCompaction({ ...compaction(db, 3), log, intervalMs: 10 });
    try {
      await eventually(
        'the passing runs compacted',
        async () => Object.values(await stepsById(db)).filter((s) => s === 'compacted').length === 26,
        10_000,
      );
    } finally {
      await periodic?.stop();
    }
  });

  it('migrates down and up again', async () => {
    await insertRuns(db, ['pass', 'pass', 'pass', 'pass', 'pass']);
    await compactRunDetails(compaction(db, 1));
    await migration.down(db as unknown as Kysely<unknown>);
    const columns = async () =>
      (await db.introspection.getTables()).find((t) => t.name === 'runs')?.columns.map((c) => c.name);
    expect(await columns()).not.toContain('details_compacted');
    await migration.up(db as unknown as Kysely<unknown>);
    expect(await columns()).toContain('details_compacted');
    // The marks went with the column: the runs are compacted again, to the same steps.
    expect((await compactRunDetails(compaction(db, 1))).compacted).toBe(3);
    const steps = await db
      .selectFrom('runs')
      .select('steps')
      .where('id', '=', 'run_1')
      .executeTakeFirstOrThrow();
    expect(steps.steps).toEqual(storedCompactedSteps);
  });
});

describe('a compacted run over the API', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    const saved = await hub.request('PUT', '/monitor/mon-1', {
      body: monitorAgainst({ url: 'http://127.0.0.1:9' } as Target),
    });
    expect(saved.status).toBeLessThan(300);
    await insertRuns(hub.db, ['pass', 'pass', 'pass', 'pass', 'pass']);
    await compactRunDetails(compaction(hub.db, 1));
  });
  afterAll(() => hub.close());

  it('answers GET /runs/{id} as a Run, says its details were compacted, keeps its outcome', async () => {
    const response = await hub.request('GET', '/runs/run_1', { as: 'acmeViewer' });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: unknown };
    const run = runSchema.parse(data);
    expect(run).toMatchObject({ id: 'run_1', success: true, status: 'completed', detailsCompacted: true });
    expect(run.steps).toEqual(compactedSteps);
  });

  it('answers a run compacted before the steps were arrays (objects stored) as it always did', async () => {
    await hub.db
      .updateTable('runs')
      .set({ steps: jsonColumn(compactedSteps) })
      .where('id', '=', 'run_2')
      .execute();
    const response = await hub.request('GET', '/runs/run_2', { as: 'acmeViewer' });
    const run = runSchema.parse(((await response.json()) as { data: unknown }).data);
    expect(run).toMatchObject({ id: 'run_2', detailsCompacted: true, steps: compactedSteps });
  });

  it('leaves compacted steps as they are when compacted again', async () => {
    const again = await hub.db
      .updateTable('runs')
      .set({ steps: sql`${compactedStepsSql(sql`steps`)}` })
      .where('id', 'in', ['run_1', 'run_2'])
      .returning(['id', 'steps'])
      .execute();
    expect(new Map(again.map((row) => [row.id, row.steps]))).toEqual(
      new Map([
        ['run_1', storedCompactedSteps],
        ['run_2', storedCompactedSteps],
      ]),
    );
  });

  it('lists compacted and whole runs alike, the whole ones without the field', async () => {
    const response = await hub.request('GET', '/runs/?monitorId=mon-1', { as: 'acmeViewer' });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: unknown[] };
    const runs = data.map((run) => runSchema.parse(run));
    expect(runs.map((r) => [r.id, r.detailsCompacted ?? false])).toEqual([
      ['run_4', false],
      ['run_3', true],
      ['run_2', true],
      ['run_1', true],
      ['run_0', false],
    ]);
    expect(runs[0]?.steps).toEqual(detailedSteps);
  });
});
