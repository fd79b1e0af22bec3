import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

// docs/benchmarks.md and ADR 0088 quote `npx tsx bench/http-request-cost.ts 20000`: the same command at a size a test
// affords, both ways of sending a request answered by its loopback server, four alternated rounds as ratios.
describe('bench/http-request-cost.ts', () => {
  it('prints four rounds of request() against dispatchRequest and ends', { timeout: 150_000 }, async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'bench/http-request-cost.ts', '200'], {
      cwd: root,
      timeout: 120_000,
    });
    const rounds = stdout.match(
      /^request\(\) \d+\.\d µs, dispatchRequest \d+\.\d µs a request of this process, \d+\.\d\dx$/gm,
    );
    expect(rounds, stdout).toHaveLength(4);
  });
});
