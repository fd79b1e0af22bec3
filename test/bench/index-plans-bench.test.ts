// `npm run bench:index-plans` as docs/benchmarks.md gives it, at a size a test affords: it seeds one organization's
// runs and minute rows in the test PostgreSQL and prints each read's plan with and without its index.
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

const runBench = (args: string[]) => runBenchScript('bench:index-plans', args);

describe('npm run bench:index-plans', () => {
  it('explains each read with its index and without it', { timeout: 300_000 }, async () => {
    const { code, output } = await runBench(['--monitors', '5', '--minutes', '70']);
    expect(output).toContain('5 monitors, 350 runs and minute rows (70 minutes of one day)');
    for (const read of [
      'GET /runs/?limit=100',
      "an organization's last 65 minutes",
      "a monitor's last 65 minutes",
    ]) {
      expect(output).toMatch(
        new RegExp(`^\\| ${read.replace(/[?/]/g, '\\$&')} \\| with \`\\w+\` \\| [\\d.]+ ms; `, 'm'),
      );
      expect(output).toMatch(
        new RegExp(`^\\| ${read.replace(/[?/]/g, '\\$&')} \\| without \\| [\\d.]+ ms; `, 'm'),
      );
    }
    expect(code).toBe(0);
  });

  it(
    'refuses a size beyond one day of 10,000 monitors instead of clamping it',
    { timeout: 120_000 },
    async () => {
      const { code, output } = await runBench(['--monitors', '5', '--minutes', '2000']);
      expect(code).not.toBe(0);
      expect(output).toMatch(/minutes/);
    },
  );
});
