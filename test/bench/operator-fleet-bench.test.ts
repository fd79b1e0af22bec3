// `npm run bench:operator` as docs/benchmarks.md gives it, at a size a test affords: it starts its own control
// plane, the compiled operator and `meerkat dev`, and prints its one row of figures.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function runBench(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'bench:operator', '--', ...args], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('npm run bench:operator', () => {
  it('syncs a small fleet and prints its row of figures', { timeout: 600_000 }, async () => {
    const { code, output } = await runBench(['--monitors', '5', '--steady', '10', '--settle-timeout', '0']);
    expect(output).toContain('created 5 Monitors');
    expect(output).toMatch(/^\| 5 \| \d+ s \| \*\*\d+ s\*\* \| [\d.]+ s, \d+ MiB \| \d+ \(\d+\) \| \d+ \|/m);
    // What the operator's memory is made of, from its own /metrics (issue 39, ADR 0079).
    expect(output).toMatch(
      /^operator memory at the end of the steady state: RSS \d+ MiB; V8 heap used \d+ of \d+ MiB/m,
    );
    expect(code).toBe(0);
  });
});
