import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startMeerkatDev, type MeerkatDev } from '../harness/processes.js';
import type { RunningTarget } from './broken-targets.js';
import { startJsonDocumentsTarget } from './json-documents-target.js';

const BUDGET_MS = 2_000;
// The payload that blocked the whole process for hours when paths ran on jsonpath-plus and JavaScript's RegExp.
const BACKTRACKING = { name: `${'a'.repeat(40)}!` };
const BACKTRACKING_PATH = "$[?match(@, '(a+)+$')]";
// Keeps a thread busy for the whole budget: count($..*) walks all 20 000 items again for each of them.
const QUADRATIC_PATH = '$..[?count($..*) > 0]';
const isNotNull = { type: 'unary', operator: 'IS_NOT_NULL' };

interface Run {
  status: string;
  success: boolean | null;
  duration_ms: number | null;
  errors: string[];
  steps: Array<{ nodeId: string; errorClass?: string }> | null;
}

describe('meerkat dev, while a monitor runs a backtracking pattern and a costly JSONPath', () => {
  let target: RunningTarget;
  let dev: MeerkatDev;
  let base: string;
  let key: string;

  beforeAll(async () => {
    target = await startJsonDocumentsTarget({
      '/name': BACKTRACKING,
      '/large': Array.from({ length: 20_000 }, (_, id) => ({ id })),
    });
    dev = await startMeerkatDev({ ASSERTION_BUDGET_MS: String(BUDGET_MS) });
    ({ key, api: base } = dev);
  });
  afterAll(async () => {
    await dev.stop();
    await target.close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return (await response.json()) as { data: Run & { id: string } };
  };

  /** The longest the dev process's event loop was held since the last scrape (prom-client resets it on each). */
  async function eventLoopHeldMs(): Promise<number> {
    const text = await (await fetch(dev.metricsUrl)).text();
    const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
    expect(line).toBeDefined();
    return Number(line!.split(' ').at(-1)) * 1_000;
  }

  /**
   * Triggers a run and, until it ends, asks `GET /` again and again; returns the run, how many answers came, and
   * the longest the process's event loop was held meanwhile (its own monitor, sampled every 100 ms).
   */
  async function runWhileProbing(): Promise<{ run: Run; answers: number; heldMs: number }> {
    await eventLoopHeldMs(); // resets the maximum
    const { data } = await call('POST', '/runs/trigger/backtracking', { environment: 'default' });
    let answers = 0;
    const run = await eventually(async () => {
      const health = await fetch(`${base}/`);
      expect(health.status).toBe(200);
      answers += 1;
      const current = (await call('GET', `/runs/${data.id}`)).data;
      return current.status === 'completed' || current.status === 'failed' ? current : undefined;
    });
    return { run, answers, heldMs: await eventLoopHeldMs() };
  }

  it('keeps answering GET / while the budget runs out, and ends the run failed within it', async () => {
    await call('PUT', '/monitor/backtracking', {
      project: 'shop',
      name: 'backtracking',
      version: '1.0',
      frequency: { every: 1, unit: 'HOUR' },
      nodes: [
        {
          id: 'name',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: target.url,
          path: '/name',
          response_format: 'JSON',
        },
        {
          id: 'large',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: target.url,
          path: '/large',
          response_format: 'JSON',
        },
        {
          id: 'check',
          type: 'ASSERTION',
          assertions: [
            { nodeId: 'name', subject: 'body', path: BACKTRACKING_PATH, predicate: isNotNull },
            { nodeId: 'large', subject: 'body', path: QUADRATIC_PATH, predicate: isNotNull },
          ],
        },
      ],
      edges: [
        { from: 'name', to: 'check' },
        { from: 'large', to: 'check' },
      ],
    });
    const first = await runWhileProbing(); // it also starts the assertion threads
    const second = await runWhileProbing();
    for (const { run, answers, heldMs } of [first, second]) {
      // A held event loop would be held for the whole budget (with jsonpath-plus, for hours), so the bound is a
      // fraction of the budget read from the process's own event-loop monitor, not a round trip's time: round trips
      // measure the machine's load too (a p95 under 250 ms failed at load 13.5 with the evaluation off the loop).
      expect(answers).toBeGreaterThan(5);
      expect(heldMs).toBeLessThan(BUDGET_MS / 2);
      expect(run).toMatchObject({ status: 'failed', success: false });
      expect(run.steps?.find((step) => step.nodeId === 'check')?.errorClass).toBe('assertion');
      expect(run.errors).toEqual([
        expect.stringContaining(`${BACKTRACKING_PATH} IS_NOT_NULL, got nothing`),
        expect.stringContaining(`assertion budget of ${BUDGET_MS} ms`),
      ]);
    }
    expect(second.run.duration_ms).toBeLessThanOrEqual(BUDGET_MS + 1_000);
  });
});
