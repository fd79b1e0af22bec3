// `npm run bench:monitor-sync` as docs/benchmarks.md gives it, at a size a test affords: it starts `meerkat dev`,
// sends a few Monitors as the operator does and prints the hub's CPU a Monitor for each pass.
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

describe('npm run bench:monitor-sync', () => {
  it('creates a small fleet in bulks, puts it again and prints its rows', { timeout: 600_000 }, async () => {
    const { code, output } = await runBenchScript('bench:monitor-sync', [
      '--monitors',
      '20',
      '--bulk-size',
      '7',
      '--concurrency',
      '2',
    ]);
    expect(output).toContain('20 Monitors, bulks of 7, 2 in flight');
    for (const pass of ['create \\(bulk\\)', 'unchanged \\(bulk\\)', 'unchanged \\(PUT\\)'])
      expect(output).toMatch(
        new RegExp(`^\\| ${pass} \\| 20 \\| [\\d.]+ s \\| [\\d.]+ s \\| \\*\\*[\\d.]+ ms\\*\\* \\|$`, 'm'),
      );
    expect(code).toBe(0);
  });

  it('refuses a bulk larger than the hub takes', async () => {
    const { code, output } = await runBenchScript('bench:monitor-sync', ['--bulk-size', '101']);
    expect(output).toMatch(/bulk-size/);
    expect(code).not.toBe(0);
  });
});
