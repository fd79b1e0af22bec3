import type { Assertion } from '../contract/assertion.js';
import type { MonitorNode } from '../contract/monitor-definition.js';
import { AssertionBudgetError } from './assertion-budget-error.js';
import type { AssertionPool } from './assertion-pool.js';
import type { BodyVerdict } from './body-check-evaluation.js';
import type { RecordedResponse } from './step-context.js';
import { describeError } from './step-errors.js';

export type BodyAssertion = Extract<Assertion, { subject: 'body' }>;

/** The JSONPath body assertions of one run, evaluated on the assertion pool within the run's budget. */
export interface BodyChecks {
  /**
   * The verdict of a body assertion on a JSON response. The first call for a response sends its body to a pool
   * thread once, with every body assertion of the monitor on that response; the others wait for that answer.
   */
  verdictOf(assertion: BodyAssertion, response: RecordedResponse): Promise<BodyVerdict>;
}

/** Every body assertion of the monitor, grouped by the HTTP_REQUEST node whose response it reads. */
function bodyAssertionsByNode(nodes: readonly MonitorNode[]): Map<string, BodyAssertion[]> {
  const byNode = new Map<string, BodyAssertion[]>();
  for (const node of nodes) {
    if (node.type !== 'ASSERTION') continue;
    for (const assertion of node.assertions) {
      if (assertion.subject !== 'body') continue;
      byNode.set(assertion.nodeId, [...(byNode.get(assertion.nodeId) ?? []), assertion]);
    }
  }
  return byNode;
}

/**
 * `budgetMs` is the thread time all of the run's evaluations may take together: each one gets what the
 * earlier ones left, so a monitor cannot multiply its share by spreading a costly path over many steps.
 */
export function planBodyChecks(
  nodes: readonly MonitorNode[],
  options: { pool: AssertionPool; budgetMs: number; runSignal: AbortSignal },
): BodyChecks {
  const { pool, budgetMs, runSignal } = options;
  let byNode: Map<string, BodyAssertion[]> | undefined;
  const evaluations = new Map<string, Promise<Map<BodyAssertion, BodyVerdict>>>();
  let spentMs = 0;

  async function evaluateResponse(nodeId: string, response: RecordedResponse) {
    byNode ??= bodyAssertionsByNode(nodes);
    const assertions = byNode.get(nodeId) ?? [];
    const checks = assertions.map(({ path, predicate }) => ({ path, predicate }));
    try {
      const left = budgetMs - spentMs;
      if (left <= 0) throw new AssertionBudgetError(budgetMs);
      const { verdicts, elapsedMs } = await pool.evaluate(response.body.text, checks, left, runSignal);
      spentMs += elapsedMs;
      return new Map(
        assertions.map((assertion, index) => [assertion, verdicts[index] ?? failed('no verdict')]),
      );
    } catch (error) {
      if (error instanceof AssertionBudgetError) spentMs = budgetMs;
      const verdict = failed(
        runSignal.aborted ? `stopped: ${describeError(runSignal.reason)}` : describeError(error),
      );
      return new Map(assertions.map((assertion) => [assertion, verdict]));
    }
  }

  return {
    async verdictOf(assertion, response) {
      let evaluation = evaluations.get(assertion.nodeId);
      if (evaluation === undefined) {
        evaluation = evaluateResponse(assertion.nodeId, response);
        evaluations.set(assertion.nodeId, evaluation);
      }
      return (await evaluation).get(assertion) ?? failed('the assertion is not part of the monitor');
    },
  };
}

const failed = (problem: string): BodyVerdict => ({ actual: undefined, passed: false, problem });
