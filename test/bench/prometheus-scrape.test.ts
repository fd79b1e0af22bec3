import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

// docs/benchmarks.md quotes `npx tsx bench/prometheus-scrape.ts --monitors 20000 --scrapes 3`: the same command at a
// size a test affords, with what its line reports.
describe('bench/prometheus-scrape.ts', () => {
  it('reports a scrape of the run series of the monitors asked for', async () => {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'bench/prometheus-scrape.ts', '--monitors', '300', '--scrapes', '2'],
      { cwd: root, timeout: 120_000 },
    );
    const match =
      /^300 monitors, 2 scrapes: median \d+ ms wall, \d+ ms CPU, ([\d.]+) MB; event loop blocked at most \d+ ms$/m.exec(
        stdout,
      );
    expect(match, stdout).not.toBeNull();
    // 26 samples of about 150 bytes for each of 300 monitors.
    expect(Number(match?.[1])).toBeGreaterThan(1);
  });

  it('refuses a size that is not a positive integer', async () => {
    await expect(
      promisify(execFile)('npx', ['tsx', 'bench/prometheus-scrape.ts', '--monitors', '0'], { cwd: root }),
    ).rejects.toThrow(/--monitors and --scrapes must be positive integers/);
  });
});
