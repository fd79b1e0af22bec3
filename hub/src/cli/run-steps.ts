import type { Run } from '../contract/run.js';

/** What a run's step records hold that a person reads (the full shape: hub/src/runner/run-outcome.ts). */
export interface StepRecord {
  nodeId?: string;
  type?: string;
  status?: string;
  startedAt?: string | null;
  durationMs?: number | null;
  error?: string;
  request?: { method?: string; url?: string };
  response?: { status?: number; bytes?: number; excerpt?: string };
  redirects?: Array<{ status?: number; url?: string }>;
  assertions?: Array<{ passed?: boolean; message?: string }>;
}

export const stepsOf = (run: Run): StepRecord[] => run.steps ?? [];

/** The failing steps of a run, one line each, with each failed assertion under its step. */
export function failingSteps(run: Run, indent = '      '): string[] {
  const lines: string[] = [];
  for (const step of stepsOf(run)) {
    if (step.status === 'passed' || step.status === 'skipped') continue;
    lines.push(`${indent}${step.nodeId ?? '?'}: ${step.error ?? step.status ?? 'failed'}`);
    for (const assertion of step.assertions ?? [])
      if (assertion.passed === false) lines.push(`${indent}  ${assertion.message ?? 'assertion failed'}`);
  }
  if (lines.length === 0 && run.success === false)
    lines.push(...run.errors.map((error) => `${indent}${error}`));
  return lines;
}

/** Why a run failed, in one line: its first error; empty for a run that passed or has not finished. */
export function failureReason(run: Run): string {
  return run.success === false ? (run.errors[0] ?? 'failed') : '';
}

const took = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '' : ` in ${Math.round(ms)} ms`;

/**
 * A run's step log, as `meerkat logs RUN` prints it: one line per step in the definition's order (when it started,
 * what it did, its outcome and time), then under it the redirects it followed, why it failed, each assertion and,
 * for a failed step, the start of the response body.
 */
export function stepLog(run: Run): string[] {
  const lines: string[] = [];
  for (const step of stepsOf(run)) {
    const request =
      step.request === undefined ? '' : `  ${step.request.method ?? ''} ${step.request.url ?? ''}`;
    const response =
      step.response === undefined ? '' : ` -> ${step.response.status ?? '?'} (${step.response.bytes ?? 0} B)`;
    const when = step.startedAt ?? '-'.padEnd(24);
    lines.push(
      `${when}  ${step.nodeId ?? '?'}  ${step.type ?? ''}  ${step.status ?? '?'}${request}${response}${took(step.durationMs)}`,
    );
    for (const redirect of step.redirects ?? [])
      lines.push(`    redirect ${redirect.status ?? '?'} -> ${redirect.url ?? '?'}`);
    if (step.error !== undefined) lines.push(`    error: ${step.error}`);
    for (const assertion of step.assertions ?? [])
      lines.push(`    ${assertion.passed === true ? 'ok' : 'FAILED'}: ${assertion.message ?? ''}`);
    if (step.status === 'failed' && step.response?.excerpt !== undefined)
      lines.push(...step.response.excerpt.split('\n').map((line) => `    | ${line}`));
  }
  if (lines.length === 0) lines.push(...run.errors.map((error) => `error: ${error}`));
  return lines;
}
