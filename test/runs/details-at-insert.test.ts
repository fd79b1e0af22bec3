import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../hub/src/contract/run.js';
import { loadSettings } from '../../hub/src/config/settings.js';
import { recordScheduledRuns, type RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import type { DetailsAtInsert, RunResult } from '../../hub/src/runs/run.repository.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorAgainst, type Target } from './run-fixtures.js';

// RUN_DETAILS_AT_INSERT=compact-unchanged (docs/adr/0072): a passing scheduled run whose previous run of its
// monitor and location passed is stored compacted as it is inserted; the first run, failures and the first pass
// after a failure keep their details. Written through the worker's write path, read through the API.
const MINUTE = 60_000;
const START = Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE;

/** What the runner reports for an HTTP step and an assertion step: request, response excerpt, timings, TLS. */
function detailedSteps(passed: boolean) {
  const status = passed ? 'passed' : 'failed';
  return [
    {
      nodeId: 'get',
      type: 'HTTP_REQUEST',
      status: 'passed',
      startedAt: new Date(START).toISOString(),
      durationMs: 12,
      request: { method: 'GET', url: 'https://api.example.com/health' },
      response: { status: passed ? 200 : 503, bytes: 1500, excerpt: `{"padding":"${'x'.repeat(1000)}"}` },
      timings: { totalMs: 12, dnsMs: 1, connectMs: 2, tlsMs: 5, firstByteMs: 10 },
      tls: { earliestNotAfter: '2027-01-01T00:00:00.000Z' },
    },
    {
      nodeId: 'check',
      type: 'ASSERTION',
      status,
      startedAt: new Date(START).toISOString(),
      durationMs: null,
      assertions: [
        {
          nodeId: 'get',
          subject: 'status',
          operator: 'EQUAL',
          expected: 200,
          actual: passed ? 200 : 503,
          passed,
        },
      ],
    },
  ];
}
const compactedSteps = (passed: boolean) => [
  { nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed', durationMs: 12 },
  { nodeId: 'check', type: 'ASSERTION', status: passed ? 'passed' : 'failed' },
];

/** A hook that remembers the steps each finished run was handed over with. */
function stepsSeen() {
  const seen = new Map<string, unknown>();
  const hook: RunFinishedHook = {
    name: 'steps-seen',
    onRunsFinished(_tx, runs) {
      for (const run of runs) seen.set(run.id, run.steps);
      return Promise.resolve();
    },
  };
  return { hook, seen };
}

/** Records the monitor's runs one slot a minute apart, one batch each, as the worker's writer does. */
async function recordOutcomes(
  hub: TestHub,
  monitorId: string,
  outcomes: ReadonlyArray<'pass' | 'fail'>,
  detailsAtInsert: DetailsAtInsert,
  hooks: readonly RunFinishedHook[],
) {
  for (const [i, outcome] of outcomes.entries()) {
    const slot = START + i * MINUTE;
    const result: RunResult = {
      success: outcome === 'pass',
      errors: outcome === 'pass' ? [] : ['check: status EQUAL 200, got 503'],
      steps: detailedSteps(outcome === 'pass'),
      completedAt: new Date(slot + 120),
      durationMs: 100,
    };
    const run = {
      organization_id: 'acme',
      id: `run_${monitorId}_${i}`,
      monitor_id: monitorId,
      execution_group_id: `grp_${monitorId}_${i}`,
      location: 'default',
      environment: 'production',
      schedule_slot: String(slot),
      started_at: new Date(slot + 20),
    };
    const [row] = await recordScheduledRuns(hub.db, [{ run, result }], hooks, detailsAtInsert);
    expect(row?.id).toBe(run.id);
  }
}

async function runById(hub: TestHub, id: string): Promise<Run> {
  const response = await hub.request('GET', `/runs/${id}`, { as: 'acmeViewer' });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: unknown };
  return runSchema.parse(data);
}

describe('RUN_DETAILS_AT_INSERT', () => {
  let hub: TestHub;
  const { hook, seen } = stepsSeen();

  beforeAll(async () => {
    hub = await startTestHub();
    for (const id of ['mon-compact', 'mon-whole']) {
      const saved = await hub.request('PUT', `/monitor/${id}`, {
        body: monitorAgainst({ url: 'http://127.0.0.1:9' } as Target, { name: id }),
      });
      expect(saved.status).toBeLessThan(300);
    }
    await recordOutcomes(hub, 'mon-compact', ['pass', 'pass', 'fail', 'pass', 'pass'], 'compact-unchanged', [
      hook,
    ]);
    await recordOutcomes(hub, 'mon-whole', ['pass', 'pass'], 'whole', [hook]);
  });
  afterAll(() => hub.close());

  it('is whole by default and takes only its two values', () => {
    const base = {
      DATABASE_URL: 'postgres://localhost/meerkat',
      REDIS_URL: 'redis://localhost:6379',
      SECRETS_KEY: 'ab'.repeat(32),
    };
    expect(loadSettings(base, 'worker').RUN_DETAILS_AT_INSERT).toBe('whole');
    expect(
      loadSettings({ ...base, RUN_DETAILS_AT_INSERT: 'compact-unchanged' }, 'worker').RUN_DETAILS_AT_INSERT,
    ).toBe('compact-unchanged');
    expect(() => loadSettings({ ...base, RUN_DETAILS_AT_INSERT: 'never' }, 'worker')).toThrow(
      /RUN_DETAILS_AT_INSERT/,
    );
  });

  it('stores a passing run after a pass compacted, as the compaction would, marked so in the API', async () => {
    for (const id of ['run_mon-compact_1', 'run_mon-compact_4']) {
      const run = await runById(hub, id);
      expect(run).toMatchObject({ id, success: true, status: 'completed', detailsCompacted: true });
      expect(run.steps).toEqual(compactedSteps(true));
    }
  });

  it('keeps the first run, a failure and the first pass after it whole', async () => {
    for (const [i, passed] of [
      [0, true],
      [2, false],
      [3, true],
    ] as const) {
      const run = await runById(hub, `run_mon-compact_${i}`);
      expect(run.detailsCompacted).toBeUndefined();
      expect(run.success).toBe(passed);
      expect(run.steps).toEqual(detailedSteps(passed));
    }
  });

  it('lists the runs with the marker on the compacted ones only', async () => {
    const response = await hub.request('GET', '/runs/?monitorId=mon-compact', { as: 'acmeViewer' });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: unknown[] };
    const runs = data.map((run) => runSchema.parse(run));
    expect(runs.map((r) => [r.id, r.detailsCompacted ?? false])).toEqual([
      ['run_mon-compact_4', true],
      ['run_mon-compact_3', false],
      ['run_mon-compact_2', false],
      ['run_mon-compact_1', true],
      ['run_mon-compact_0', false],
    ]);
  });

  it('hands the hooks every run with its whole steps (TLS expiry reads them)', () => {
    expect(seen.get('run_mon-compact_4')).toEqual(detailedSteps(true));
    expect(seen.get('run_mon-compact_1')).toEqual(detailedSteps(true));
  });

  it('inserts every run whole with the default', async () => {
    for (const id of ['run_mon-whole_0', 'run_mon-whole_1']) {
      const run = await runById(hub, id);
      expect(run.detailsCompacted).toBeUndefined();
      expect(run.steps).toEqual(detailedSteps(true));
    }
  });
});
