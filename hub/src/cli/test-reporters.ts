import type { RunOutcome } from '../runner/run-outcome.js';
import { formatRunReport } from '../runner/run-report.js';

// How `meerkat test` reports: the text report for people, and JUnit XML, JSON and TAP for CI systems. Each reads
// finished (redacted) outcomes only, so none can print a secret value.

export const reporters = ['text', 'junit', 'json', 'tap'] as const;
export type ReporterName = (typeof reporters)[number];

export interface MonitorResult {
  monitor: string;
  outcome: RunOutcome;
}

/** ANSI colours, or none: on a terminal only, and never with NO_COLOR set (https://no-color.org). */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

const paint = (code: number) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const green = paint(32);
const red = paint(31);
const dim = paint(2);

function colourLine(line: string): string {
  if (line.startsWith('PASSED ')) return green(line);
  if (line.startsWith('FAILED ')) return red(line);
  return line
    .replace(/^( {2})(passed)( )/, (_, a: string, b: string, c: string) => a + green(b) + c)
    .replace(/^( {2})(failed)( )/, (_, a: string, b: string, c: string) => a + red(b) + c)
    .replace(/^( {2})(skipped)( )/, (_, a: string, b: string, c: string) => a + dim(b) + c);
}

/** One monitor's text report, coloured when asked. */
export function textReport(result: MonitorResult, colour: boolean): string {
  const report = formatRunReport(result.monitor, result.outcome);
  return colour ? report.split('\n').map(colourLine).join('\n') : report;
}

/** The totals across monitors, as the last line of the text report: `3 monitor(s): 2 passed, 1 failed in 1.20 s`. */
export function summaryLine(results: MonitorResult[], colour: boolean): string {
  const failed = results.filter((r) => !r.outcome.success).length;
  const ms = results.reduce((sum, r) => sum + r.outcome.durationMs, 0);
  const line = `${results.length} monitor(s): ${results.length - failed} passed, ${failed} failed in ${(ms / 1000).toFixed(2)} s`;
  return (colour ? (failed > 0 ? red(line) : green(line)) : line) + '\n';
}

const xml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 cannot carry at all.
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');

/** JUnit XML as Jenkins, GitLab and GitHub test reporters read it: a suite per monitor, a test case per step. */
export function junitReport(results: MonitorResult[]): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = results.reduce(
    (n, r) => n + r.outcome.steps.filter((s) => s.status === 'failed').length,
    0,
  );
  const steps = results.reduce((n, r) => n + r.outcome.steps.length, 0);
  const total = results.reduce((sum, r) => sum + r.outcome.durationMs, 0) / 1000;
  lines.push(
    `<testsuites name="meerkat test" tests="${steps}" failures="${failures}" time="${total.toFixed(3)}">`,
  );
  for (const { monitor, outcome } of results) {
    const failed = outcome.steps.filter((s) => s.status === 'failed').length;
    const skipped = outcome.steps.filter((s) => s.status === 'skipped').length;
    lines.push(
      `  <testsuite name="${xml(monitor)}" tests="${outcome.steps.length}" failures="${failed}" skipped="${skipped}" ` +
        `time="${(outcome.durationMs / 1000).toFixed(3)}" timestamp="${outcome.startedAt.toISOString()}">`,
    );
    for (const step of outcome.steps) {
      const open = `    <testcase classname="${xml(monitor)}" name="${xml(`${step.nodeId} (${step.type})`)}" time="${((step.durationMs ?? 0) / 1000).toFixed(3)}"`;
      if (step.status === 'passed') {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      if (step.status === 'skipped') lines.push(`      <skipped message="${xml(step.error ?? 'skipped')}"/>`);
      else {
        const failedAssertions = (step.assertions ?? []).filter((a) => !a.passed).map((a) => a.message);
        lines.push(
          `      <failure message="${xml(step.error ?? 'failed')}" type="${xml(step.errorClass ?? 'failure')}">` +
            `${xml(failedAssertions.join('\n'))}</failure>`,
        );
      }
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

/** TAP version 14: one test point per monitor, with its failing steps as a YAML diagnostic block. */
export function tapReport(results: MonitorResult[]): string {
  const lines = ['TAP version 14', `1..${results.length}`];
  results.forEach(({ monitor, outcome }, index) => {
    lines.push(`${outcome.success ? 'ok' : 'not ok'} ${index + 1} - ${monitor}`);
    if (outcome.success) return;
    lines.push('  ---', `  duration_ms: ${outcome.durationMs}`, '  errors:');
    for (const error of outcome.errors) lines.push(`    - ${JSON.stringify(error)}`);
    lines.push('  ...');
  });
  return lines.join('\n') + '\n';
}

export function jsonReport(results: MonitorResult[]): string {
  const failed = results.filter((r) => !r.outcome.success).length;
  const summary = { monitors: results.length, passed: results.length - failed, failed };
  return JSON.stringify({ summary, results }, null, 2) + '\n';
}
