import { createSecretRedactor } from '../secrets/secret-refs.js';
import type { EvaluatedAssertion } from './assertion-step.js';
import { derivedSecretForms, hideCutSecretFragments } from './secret-fragments.js';
import type { AssertionOutcome, ErrorClass, RunOutcome, StepResult } from './run-outcome.js';

const MAX_ACTUAL_CHARS = 1024;
const MAX_QUOTED_CHARS = 120;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

interface Redactor {
  text(text: string): string;
  value(value: unknown): unknown;
  /** An error message, which may quote a library's cut excerpt of a secret as well as whole values. */
  message(text: string): string;
}

/**
 * Hides the run's secret values. A JSON value is redacted through its JSON text in one pass; if a value spelled
 * across JSON syntax made the text unparsable, the redacted text itself stands in for the value.
 */
function redactorFor(secretValues: string[]): Redactor {
  if (secretValues.length === 0)
    return { text: (text) => text, value: (value) => value, message: (text) => text };
  const all = [...secretValues, ...derivedSecretForms(secretValues)];
  const text = createSecretRedactor(all);
  const forms = all.flatMap((form) => [form, encodeURIComponent(form), JSON.stringify(form).slice(1, -1)]);
  const message = (input: string) => hideCutSecretFragments(text(input), forms);
  const value = (input: unknown): unknown => {
    if (typeof input === 'string') return text(input);
    if (input === undefined) return input;
    const json = JSON.stringify(input);
    const redacted = text(json);
    if (redacted === json) return input;
    try {
      const parsed: unknown = JSON.parse(redacted);
      return parsed;
    } catch {
      return redacted;
    }
  };
  return { text, value, message };
}

/** Keeps run rows small: a long text, or JSON whose text is long, is cut (after redaction, so no half-secret). */
function cutActual(value: unknown): unknown {
  if (typeof value === 'string') return cut(value, MAX_ACTUAL_CHARS);
  if (value !== null && typeof value === 'object') {
    const json = JSON.stringify(value);
    return json.length > MAX_ACTUAL_CHARS ? cut(json, MAX_ACTUAL_CHARS) : value;
  }
  return value;
}

function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON.stringify gives undefined only for functions and symbols, which JSON bodies never hold.
  return cut(JSON.stringify(value) ?? 'nothing', MAX_QUOTED_CHARS);
}

/** `login status EQUAL 201, got 503`; `account body $.email ENDS_WITH "@shop.example.com", got nothing`. */
function describeAssertion(outcome: AssertionOutcome, problem: string | undefined): string {
  const subject =
    outcome.subject === 'headers'
      ? `header ${outcome.headerName ?? ''}`
      : outcome.subject === 'body'
        ? `body ${outcome.path ?? ''}`
        : outcome.subject;
  const unit = outcome.subject === 'responseTime' && typeof outcome.actual === 'number' ? ' ms' : '';
  const expected = 'expected' in outcome ? ` ${quote(outcome.expected)}` : '';
  // "got nothing" already says a value is absent.
  const why = problem !== undefined && problem !== 'absent' ? ` (${problem})` : '';
  return `${outcome.nodeId} ${subject} ${outcome.operator}${expected}, got ${quote(outcome.actual)}${unit}${why}`;
}

function finalizeAssertion(
  { problem, ...evaluated }: EvaluatedAssertion,
  redact: Redactor,
): AssertionOutcome {
  const outcome: AssertionOutcome = { ...evaluated, actual: redact.value(evaluated.actual) };
  if ('expected' in evaluated) outcome.expected = redact.value(evaluated.expected);
  const message = describeAssertion(outcome, problem === undefined ? undefined : redact.message(problem));
  return { ...outcome, actual: cutActual(outcome.actual), message };
}

function finalizeStep(step: StepResult, redact: Redactor): StepResult {
  const final: StepResult = { ...step };
  if (step.error !== undefined) final.error = redact.message(step.error);
  if (step.request !== undefined) final.request = { ...step.request, url: redact.text(step.request.url) };
  if (step.response?.excerpt !== undefined)
    final.response = { ...step.response, excerpt: redact.message(step.response.excerpt) };
  if (step.received?.excerpt !== undefined)
    final.received = { ...step.received, excerpt: redact.message(step.received.excerpt) };
  if (step.redirects !== undefined)
    final.redirects = step.redirects.map((hop) => ({ ...hop, url: redact.text(hop.url) }));
  if (step.assertions !== undefined)
    final.assertions = step.assertions.map((outcome) => finalizeAssertion(outcome, redact));
  return final;
}

/**
 * Writes the run's messages and errors and redacts every secret value the run used from all of it: nothing in
 * a RunOutcome may show a secret (DESIGN.md "Secrets"). `runError` is the run-level failure (timeout, cancel).
 */
export function finalizeOutcome(input: {
  steps: StepResult[];
  runError: { message: string; errorClass: ErrorClass } | undefined;
  secretValues: Iterable<string>;
  startedAt: Date;
  completedAt: Date;
  durationMs: number;
}): RunOutcome {
  const redact = redactorFor([...input.secretValues]);
  const steps = input.steps.map((step) => finalizeStep(step, redact));
  const errors: string[] = [];
  const errorClasses: ErrorClass[] = [];
  if (input.runError !== undefined) {
    errors.push(redact.message(input.runError.message));
    errorClasses.push(input.runError.errorClass);
  }
  for (const step of steps) {
    if (step.status !== 'failed') continue;
    const failedAssertions = (step.assertions ?? []).filter((outcome) => !outcome.passed);
    const lines =
      failedAssertions.length > 0 ? failedAssertions.map((o) => o.message) : [step.error ?? 'failed'];
    for (const line of lines) {
      errors.push(`${step.nodeId}: ${line}`);
      errorClasses.push(step.errorClass ?? 'runner');
    }
  }
  return {
    success: errors.length === 0,
    errors,
    errorClasses,
    steps,
    startedAt: input.startedAt,
    completedAt: input.completedAt,
    durationMs: input.durationMs,
  };
}
