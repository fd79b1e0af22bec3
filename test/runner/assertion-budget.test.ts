import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import type { RunningTarget } from './broken-targets.js';
import { startJsonDocumentsTarget } from './json-documents-target.js';
import { assertionNode, httpNode, monitorOf, runContext } from './monitor-builders.js';

// 20 000 items: for every node, count($..*) walks the whole document again, some 10^9 steps in all.
const LARGE = Array.from({ length: 20_000 }, (_, id) => ({ id }));
const QUADRATIC_PATH = '$..[?count($..*) > 0]';

const bodyPath = (path: string, predicate: Assertion['predicate']): Assertion => ({
  nodeId: 'large',
  subject: 'body',
  path,
  predicate,
});

describe('the assertion budget', () => {
  let target: RunningTarget;
  const runner = createMonitorRunner({ egress: loopbackEgress, assertionBudgetMs: 50 });
  const monitorChecking = (assertions: Assertion[]) =>
    monitorOf(
      [httpNode('large', target.url, '/large'), assertionNode('verify', assertions)],
      [['large', 'verify']],
    );

  beforeAll(async () => {
    target = await startJsonDocumentsTarget({ '/large': LARGE });
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it('fails a run whose JSONPath takes longer than the budget, as an assertion failure that names it', async () => {
    const outcome = await runner.run(
      monitorChecking([
        bodyPath(QUADRATIC_PATH, { type: 'unary', operator: 'IS_NOT_EMPTY' }),
        {
          nodeId: 'large',
          subject: 'status',
          predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
        },
      ]),
      runContext(),
    );
    expect(outcome.success).toBe(false);
    expect(outcome.errorClasses).toEqual(['assertion']);
    expect(outcome.errors).toEqual([
      expect.stringContaining("over the run's assertion budget of 50 ms (ASSERTION_BUDGET_MS)") as string,
    ]);
    const verify = outcome.steps.find((step) => step.nodeId === 'verify');
    expect(verify).toMatchObject({ status: 'failed', errorClass: 'assertion' });
    // The status check does not wait on JSONPath, and passes.
    expect(verify?.assertions?.map((assertion) => assertion.passed)).toEqual([false, true]);
  });

  it('evaluates the next run on the same runner, on a fresh thread', async () => {
    const outcome = await runner.run(
      monitorChecking([bodyPath('$[19999].id', { type: 'binary', operator: 'EQUAL', expected: 19_999 })]),
      runContext(),
    );
    expect(outcome.errors).toEqual([]);
    expect(outcome.success).toBe(true);
  });
});
