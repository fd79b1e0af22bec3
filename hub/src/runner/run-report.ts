import type { RunOutcome, StepResult, StepTimings } from './run-outcome.js';

// The plain-text report of `meerkat test`: one line per step, one per assertion, then a summary line.
// It only reads a finished (redacted) RunOutcome, so it can never print a secret value.

const STATUS_WIDTH = 'skipped'.length;

function describeTimings(timings: StepTimings): string {
  const phases = [
    timings.dnsMs === undefined ? undefined : `dns ${timings.dnsMs} ms`,
    timings.connectMs === undefined ? undefined : `connect ${timings.connectMs} ms`,
    timings.tlsMs === undefined ? undefined : `tls ${timings.tlsMs} ms`,
    timings.firstByteMs === undefined ? undefined : `first byte ${timings.firstByteMs} ms`,
  ].filter((phase) => phase !== undefined);
  return `${timings.totalMs} ms${phases.length > 0 ? ` (${phases.join(', ')})` : ''}`;
}

function describeStep(step: StepResult): string {
  if (step.status !== 'passed') {
    const errorClass =
      step.status === 'failed' && step.errorClass !== undefined ? ` [${step.errorClass}]` : '';
    return `${step.error ?? step.status}${errorClass}`;
  }
  switch (step.type) {
    case 'WAIT':
      return `waited ${step.durationMs ?? 0} ms`;
    case 'ASSERTION':
      return `${step.assertions?.length ?? 0} assertion(s) passed`;
    default: {
      const { method, url } = step.request ?? { method: '?', url: '?' };
      const tls =
        step.tls === undefined ? '' : `, ${step.tls.version}, certificate until ${step.tls.earliestNotAfter}`;
      return `${method} ${url}${describeAnswer(step)} in ${step.timings ? describeTimings(step.timings) : '?'}${tls}`;
    }
  }
}

/** What came back, by step type: an HTTP status, the bytes a TCP step read, a DNS rcode, a serving status. */
function describeAnswer(step: StepResult): string {
  if (step.response !== undefined) return ` -> ${step.response.status}, ${step.response.bytes} bytes`;
  if (step.received !== undefined) return ` -> ${step.received.bytes} bytes`;
  if (step.dns !== undefined) return ` -> ${step.dns.rcode}, ${step.dns.answers.length} answer(s)`;
  if (step.grpc !== undefined) return ` -> ${step.grpc.servingStatus}`;
  return '';
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** The report of one run; `title` names the monitor (`shop/staging/login-flow`). */
export function formatRunReport(title: string, outcome: RunOutcome): string {
  const idWidth = Math.max(...outcome.steps.map((step) => step.nodeId.length));
  const lines = [`monitor ${title}`];
  for (const step of outcome.steps) {
    lines.push(
      `  ${step.status.padEnd(STATUS_WIDTH)}  ${step.nodeId.padEnd(idWidth)}  ${describeStep(step)}`,
    );
    for (const assertion of step.assertions ?? []) {
      const verdict = assertion.passed ? 'passed' : 'failed';
      lines.push(`  ${' '.repeat(STATUS_WIDTH + idWidth + 4)}${verdict}  ${assertion.message}`);
    }
  }
  const count = (status: StepResult['status']) =>
    outcome.steps.filter((step) => step.status === status).length;
  const took = seconds(outcome.durationMs);
  if (outcome.success) {
    lines.push(`PASSED ${title}: ${outcome.steps.length} step(s) passed in ${took}`);
  } else {
    lines.push(
      `FAILED ${title}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped in ${took}`,
    );
    outcome.errors.forEach((error, index) => lines.push(`  - ${error} [${outcome.errorClasses[index]}]`));
  }
  return lines.join('\n') + '\n';
}
