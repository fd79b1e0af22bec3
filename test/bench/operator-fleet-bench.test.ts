// `npm run bench:operator` as docs/benchmarks.md gives it, at a size a test affords: it starts its own control
// plane, the compiled operator and `meerkat dev`, and prints its one row of figures.
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

const runBench = (args: string[]) => runBenchScript('bench:operator', args);

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
