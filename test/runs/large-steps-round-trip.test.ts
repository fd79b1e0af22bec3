import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { findRun, type RunResult } from '../../hub/src/runs/run.repository.js';
import { createScheduledRunWriter } from '../../hub/src/worker/scheduled-run-writer.js';
import { apiAnswer } from '../../bench/api-answer.js';
import { databaseEngines } from '../harness/engines.js';
import { insertMonitorRow } from './run-rows.js';

// A run whose response excerpt fills its 1 KiB takes the row past PostgreSQL's 2 KB toast threshold, where
// PostgreSQL compresses its steps in the row (docs/adr/0087-postgres-compression-of-run-steps.md); what the API
// reads back must be what was written, byte for byte.
const SLOT = Date.parse('2026-03-02T10:15:00Z');
// The bench target's answer (bench/api-answer.ts), with text that is not ASCII where the excerpt keeps it.
const answer = JSON.stringify({ note: 'naïve “quotes” – and an emoji 🦦 kept as sent', ...apiAnswer() });
const excerpt = `${answer.slice(0, 1024)}…`;
if (answer.length <= 1024) throw new Error('the answer must fill the excerpt');

const result: RunResult = {
  success: true,
  errors: [],
  steps: [
    {
      type: 'HTTP_REQUEST',
      nodeId: 'get',
      status: 'passed',
      request: {
        url: 'https://api.acme-store.example/v2/storefront/catalogue/health?region=eu-west-1',
        method: 'GET',
      },
      timings: { totalMs: 41.7, firstByteMs: 38.2 },
      response: { bytes: Buffer.byteLength(answer), status: 200, excerpt },
      startedAt: new Date(SLOT + 20).toISOString(),
      durationMs: 41.7,
    },
    {
      type: 'ASSERTION',
      nodeId: 'check',
      status: 'passed',
      startedAt: new Date(SLOT + 62).toISOString(),
      assertions: [
        { nodeId: 'get', subject: 'status', operator: 'EQUAL', expected: 200, actual: 200, passed: true },
        {
          nodeId: 'get',
          subject: 'body',
          path: '$.status',
          operator: 'EQUAL',
          expected: 'ok',
          actual: 'ok',
          passed: true,
        },
      ],
      durationMs: 0.4,
    },
  ],
  completedAt: new Date(SLOT + 70),
  durationMs: 42.5,
};

describe.each(databaseEngines)('a run with a whole 1 KiB excerpt, on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
    await insertMonitorRow(db, 'mon-1');
  });
  afterAll(() => dispose());

  it('is stored compressed past the toast threshold and read back equal to what was written', async () => {
    const writer = createScheduledRunWriter(db, []);
    const run = {
      organization_id: 'acme',
      id: 'run-large',
      monitor_id: 'mon-1',
      execution_group_id: 'grp-large',
      location: 'default',
      environment: 'production',
      schedule_slot: String(SLOT),
      started_at: new Date(SLOT + 20),
    };
    expect(await writer.record({ run, result })).toMatchObject({ id: 'run-large' });

    // Compressed, so the row was past the threshold (no row under it is compressed).
    const { rows } = await sql<{ method: string | null }>`
      select pg_column_compression(steps) as method from runs where id = 'run-large'`.execute(db);
    expect(rows).toEqual([{ method: 'pglz' }]);

    const read = await findRun(db, 'acme', 'run-large');
    expect(read?.steps).toEqual(result.steps);
  });
});
