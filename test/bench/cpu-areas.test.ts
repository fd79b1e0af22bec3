// `npm run bench:cpu-areas` as docs/benchmarks.md gives it, on a profile small enough to read by eye: each sample
// goes to the area of the innermost frame that names one, idle is left out of the busy time, and µs per check
// divide an area's time by the checks given.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

const frame = (functionName: string, url = '') => ({
  functionName,
  url,
  scriptId: '0',
  lineNumber: 0,
  columnNumber: 0,
});
const PG = 'file:///app/node_modules/pg/lib/query.js';
const UNDICI = 'file:///app/node_modules/undici/lib/dispatcher/client-h1.js';
const WRITER = 'file:///app/dist/hub/src/worker/scheduled-run-writer.js';

// root ─ (idle) 1, (garbage collector) 2, writer 3 ─ pg 4 ─ writev 5, undici 6 ─ writev 7, setTimeout 8.
const profile = {
  nodes: [
    { id: 0, callFrame: frame('(root)'), children: [1, 2, 3, 6, 8] },
    { id: 1, callFrame: frame('(idle)') },
    { id: 2, callFrame: frame('(garbage collector)') },
    { id: 3, callFrame: frame('flush', WRITER), children: [4] },
    { id: 4, callFrame: frame('submit', PG), children: [5] },
    { id: 5, callFrame: frame('writev') },
    { id: 6, callFrame: frame('writeH1', UNDICI), children: [7] },
    { id: 7, callFrame: frame('writev') },
    { id: 8, callFrame: frame('listOnTimeout', 'node:internal/timers') },
  ],
  startTime: 0,
  endTime: 10_000,
  // µs: idle 5,000; GC 1,000; pg 2,000 (its writev); the writer's own 500; undici 1,000; node 500: 5,000 busy.
  samples: [1, 2, 5, 5, 3, 7, 8],
  timeDeltas: [5_000, 1_000, 1_000, 1_000, 500, 1_000, 500],
};

describe('npm run bench:cpu-areas', () => {
  it(
    'folds a profile into areas by the innermost frame that names one, per check',
    { timeout: 60_000 },
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'cpu-areas-'));
      try {
        const file = join(directory, 'small.cpuprofile');
        await writeFile(file, JSON.stringify(profile));
        const { code, output } = await runBenchScript('bench:cpu-areas', [file, '--checks', '10']);
        expect(output).toContain('small.cpuprofile: 0.010 s sampled, 0.005 s busy');
        expect(output).toContain('| pg protocol | 40.0% | 0.002 | 200.0 |');
        expect(output).toContain('| undici request | 20.0% | 0.001 | 100.0 |');
        expect(output).toContain('| GC | 20.0% | 0.001 | 100.0 |');
        expect(output).toContain('| run writer and hooks | 10.0% | 0.001 | 50.0 |');
        expect(output).toContain('| node internals (other) | 10.0% | 0.001 | 50.0 |');
        expect(output).toContain('| busy, all areas | 100.0% | 0.005 | 500.0 |');
        expect(output).not.toContain('| idle |');
        expect(code).toBe(0);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
  );

  it('refuses a call without a profile, naming its usage', { timeout: 60_000 }, async () => {
    const { code, output } = await runBenchScript('bench:cpu-areas', []);
    expect(code).not.toBe(0);
    expect(output).toContain('usage: cpu-areas.ts FILE.cpuprofile [--checks N]');
  });
});
