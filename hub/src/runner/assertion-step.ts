import { JSONPath } from 'jsonpath-plus';
import type { Assertion } from '../contract/assertion.js';
import { applyBinaryOperator, applyUnaryOperator, type Verdict } from './assertion-operators.js';
import type { AssertionOutcome, StepResult } from './run-outcome.js';
import { elapsedMs, type AssertionNode, type RecordedResponse, type StepContext } from './step-context.js';

/**
 * An assertion as evaluated, before its message is written: messages quote actual values, so they are only
 * written once the run is over and every secret value it used is known (see outcome-finalization.ts).
 */
export interface EvaluatedAssertion extends AssertionOutcome {
  problem?: string;
}

/** What the subject reads from the response; `problem` when it cannot be read at all. */
function readSubject(
  assertion: Assertion,
  response: RecordedResponse,
): { actual: unknown; problem?: string } {
  switch (assertion.subject) {
    case 'status':
      return { actual: response.status };
    case 'responseTime':
      return { actual: Math.round(response.responseTimeMs) };
    case 'text':
      return { actual: response.body.text };
    case 'headers': {
      // undici gives header names in lower case; the comparison of DESIGN.md is case-insensitive.
      const wanted = assertion.headerName.toLowerCase();
      const entry = Object.entries(response.headers).find(([name]) => name.toLowerCase() === wanted);
      const value = entry?.[1];
      return { actual: Array.isArray(value) ? value.join(', ') : value };
    }
    case 'body':
      return readJsonPath(assertion.path, response);
  }
}

function readJsonPath(path: string, response: RecordedResponse): { actual: unknown; problem?: string } {
  if (response.format !== 'JSON')
    return { actual: undefined, problem: `the response is ${response.format}, not JSON` };
  if (response.body.json === undefined) return { actual: undefined };
  try {
    const matches = JSONPath<unknown[] | undefined>({ path, json: response.body.json as object, wrap: true });
    // One match is the value itself; a path that selects several values yields the list of them.
    if (matches === undefined || matches.length === 0) return { actual: undefined };
    return { actual: matches.length === 1 ? matches[0] : matches };
  } catch (error) {
    return { actual: undefined, problem: `invalid JSONPath: ${(error as Error).message}` };
  }
}

function evaluateAssertion(assertion: Assertion, context: StepContext): EvaluatedAssertion {
  const { predicate } = assertion;
  const outcome: EvaluatedAssertion = {
    nodeId: assertion.nodeId,
    subject: assertion.subject,
    operator: predicate.operator,
    actual: undefined,
    passed: false,
    message: '',
  };
  if (assertion.subject === 'headers') outcome.headerName = assertion.headerName;
  if (assertion.subject === 'body') outcome.path = assertion.path;
  if (predicate.type === 'binary') outcome.expected = predicate.expected;

  const response = context.responses.get(assertion.nodeId);
  if (response === undefined) {
    // The graph check makes the node an ancestor, and a failed ancestor skips this step: kept as a safeguard.
    outcome.problem = `${assertion.nodeId} has no response`;
    return outcome;
  }
  const { actual, problem } = readSubject(assertion, response);
  outcome.actual = actual;
  const verdict: Verdict =
    problem !== undefined
      ? { passed: false, problem }
      : predicate.type === 'binary'
        ? applyBinaryOperator(predicate.operator, actual, predicate.expected)
        : applyUnaryOperator(predicate.operator, actual);
  outcome.passed = verdict.passed;
  if (verdict.problem !== undefined) outcome.problem = verdict.problem;
  return outcome;
}

/** An ASSERTION step: every assertion is evaluated, and the step fails when any of them fails. */
export function executeAssertions(node: AssertionNode, context: StepContext): StepResult {
  const started = performance.now();
  const startedAt = context.now().toISOString();
  const assertions = node.assertions.map((assertion) => evaluateAssertion(assertion, context));
  const failed = assertions.filter((outcome) => !outcome.passed).length;
  const result: StepResult = {
    nodeId: node.id,
    type: 'ASSERTION',
    status: failed === 0 ? 'passed' : 'failed',
    startedAt,
    durationMs: elapsedMs(started),
    assertions,
  };
  if (failed > 0) {
    result.error = `${failed} of ${assertions.length} assertion(s) failed`;
    result.errorClass = 'assertion';
  }
  return result;
}
