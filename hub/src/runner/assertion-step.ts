import type { Assertion } from '../contract/assertion.js';
import { applyBinaryOperator, applyUnaryOperator, type Verdict } from './assertion-operators.js';
import type { BodyAssertion } from './body-checks.js';
import type { AssertionOutcome, StepResult } from './run-outcome.js';
import { elapsedMs, type AssertionNode, type RecordedResponse, type StepContext } from './step-context.js';
import { errorClassOfRunEnd } from './step-errors.js';
import { daysUntilExpiry, tlsVersionNumber } from './tls-facts.js';

/**
 * An assertion as evaluated, before its message is written: messages quote actual values, so they are only
 * written once the run is over and every secret value it used is known (see outcome-finalization.ts).
 */
export interface EvaluatedAssertion extends AssertionOutcome {
  problem?: string;
}

function applyPredicate(predicate: Assertion['predicate'], actual: unknown): Verdict {
  return predicate.type === 'binary'
    ? applyBinaryOperator(predicate.operator, actual, predicate.expected)
    : applyUnaryOperator(predicate.operator, actual);
}

/**
 * What the subject reads from the response and whether the predicate holds. Status, header, text and response
 * time comparisons are linear and stay here; a JSONPath is a user's expression and runs on the assertion pool.
 */
async function judge(
  assertion: Assertion,
  response: RecordedResponse,
  context: StepContext,
): Promise<{ actual: unknown; verdict: Verdict }> {
  if (assertion.subject === 'body') return judgeBody(assertion, response, context);
  const actual = readSubject(assertion, response, context.now());
  return { actual, verdict: applyPredicate(assertion.predicate, actual) };
}

/** A TLS subject of a plain connection reads nothing: its predicate fails unless it expects absence. */
function readSubject(
  assertion: Exclude<Assertion, BodyAssertion>,
  response: RecordedResponse,
  now: Date,
): unknown {
  const { tls } = response;
  switch (assertion.subject) {
    case 'rcode':
      return response.rcode;
    case 'servingStatus':
      return response.servingStatus;
    case 'certificateExpiresInDays':
      return tls === undefined ? undefined : daysUntilExpiry(tls, now);
    case 'tlsVersion':
      return tls === undefined ? undefined : tlsVersionNumber(tls.version);
    case 'certificateIssuer':
      return tls?.issuer;
    case 'certificateVerified':
      return tls?.verified;
    case 'status':
      return response.status;
    case 'responseTime':
      return Math.round(response.responseTimeMs);
    case 'text':
      return response.body.text;
    case 'headers': {
      // undici gives header names in lower case; the comparison of DESIGN.md is case-insensitive.
      const wanted = assertion.headerName.toLowerCase();
      const entry = Object.entries(response.headers ?? {}).find(([name]) => name.toLowerCase() === wanted);
      const value = entry?.[1];
      return Array.isArray(value) ? value.join(', ') : value;
    }
  }
}

async function judgeBody(
  assertion: BodyAssertion,
  response: RecordedResponse,
  context: StepContext,
): Promise<{ actual: unknown; verdict: Verdict }> {
  if (response.format !== 'JSON')
    return {
      actual: undefined,
      verdict: { passed: false, problem: `the response is ${response.format}, not JSON` },
    };
  // An empty body (HEAD, 204) has nothing to select from: the path finds nothing, and no thread is needed.
  if (response.body.json === undefined)
    return { actual: undefined, verdict: applyPredicate(assertion.predicate, undefined) };
  const { actual, ...verdict } = await context.bodyChecks.verdictOf(assertion, response);
  return { actual, verdict };
}

async function evaluateAssertion(assertion: Assertion, context: StepContext): Promise<EvaluatedAssertion> {
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
  const { actual, verdict } = await judge(assertion, response, context);
  outcome.actual = actual;
  outcome.passed = verdict.passed;
  if (verdict.problem !== undefined) outcome.problem = verdict.problem;
  return outcome;
}

/** An ASSERTION step: every assertion is evaluated, and the step fails when any of them fails. */
export async function executeAssertions(node: AssertionNode, context: StepContext): Promise<StepResult> {
  const started = performance.now();
  const startedAt = context.now().toISOString();
  const assertions = await Promise.all(
    node.assertions.map((assertion) => evaluateAssertion(assertion, context)),
  );
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
    // Assertions cut short by the run's end fail because of it, not because the response was wrong.
    result.errorClass = context.runSignal.aborted
      ? errorClassOfRunEnd(context.runSignal.reason)
      : 'assertion';
  }
  return result;
}
