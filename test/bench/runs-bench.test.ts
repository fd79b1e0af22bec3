// `npm run bench` as docs/benchmarks.md gives it (the WAL per run), at a size a test affords: its own PostgreSQL and
// Redis, a scheduler and a worker in the process, a warm-up, then the window's runs and bytes.
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

describe('npm run bench', () => {
  it(
    'warms up as long as asked, then prints the window and its WAL per run',
    { timeout: 600_000 },
    async () => {
      const { code, output } = await runBenchScript('bench', [
        '--monitors',
        '20',
        '--every',
        '10',
        '--warmup',
        '12',
        '--duration',
        '20',
        '--keep-minutes',
        '1',
        '--keep-latest',
        '1',
        '--details-at-insert',
        'compact-unchanged',
        // A real service's answer (docs/benchmarks.md, "WAL per run (session 29)").
        '--target-body',
        'api',
      ]);
      expect(output).toContain('scheduler and worker started; warming up for 12 s');
      expect(output).toMatch(/^\| 20 \| 10 s \| 20 s \| \d+ \|/m);
      expect(output).toMatch(/^WAL: \d+ bytes, \d+ per run$/m);
      expect(code).toBe(0);
    },
  );

  it('refuses a warm-up that is not a number of seconds', async () => {
    const { code, output } = await runBenchScript('bench', ['--warmup', 'soon']);
    expect(output).toContain('--warmup: soon is not a number of seconds from 0 to 3600');
    expect(code).not.toBe(0);
  });

  it('refuses a target body it does not know', async () => {
    const { code, output } = await runBenchScript('bench', ['--target-body', 'huge']);
    expect(output).toContain('--target-body: huge is not small or api');
    expect(code).not.toBe(0);
  });
});
