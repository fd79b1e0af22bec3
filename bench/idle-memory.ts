// What each process of Meerkat holds at rest (`npx tsx bench/idle-memory.ts --settle 30`, docs/benchmarks.md
// "Memory"): Meerkat split (hub, scheduler, worker, PostgreSQL, Redis) and `meerkat dev` as bench:compare starts
// them, without monitors, side by side. After the settle time it reads each process's memory from
// /proc/<pid>/smaps_rollup (RSS, PSS, anonymous) and, for Meerkat's own, what its V8 heap and the memory outside
// it hold, from the process's Prometheus endpoint (prom-client's default metrics). `--node-options` passes
// NODE_OPTIONS to Meerkat's processes, to compare V8 flags; `--modules` also lists the packages each Node process
// loaded (an ESM loader hook and require.cache, which cost memory themselves: their run's figures are not the
// idle ones).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { RunningSystem, Workload } from './compare/bench-system.js';
import { startMeerkatDev } from './compare/meerkat-dev.js';
import { startMeerkatSplit } from './compare/meerkat-split.js';
import { treePids } from './compare/process-tree.js';
import { loadedPackages, moduleCensusHooks } from './idle-memory-modules.js';

const { values } = parseArgs({
  options: {
    settle: { type: 'string', default: '30' },
    'node-options': { type: 'string', default: '' },
    modules: { type: 'boolean', default: false },
  },
});
const settleSeconds = Number(values.settle);
if (!Number.isInteger(settleSeconds) || settleSeconds < 1 || settleSeconds > 600)
  throw new Error('--settle: seconds, 1 to 600');

const say = (line: string) => process.stdout.write(`${line}\n`);
const mib = (bytes: number | undefined) => (bytes === undefined ? '' : (bytes / 2 ** 20).toFixed(1));

/** The kB fields of a /proc/<pid>/smaps_rollup in bytes, by name (Rss, Pss, Anonymous, ...). */
function smapsRollup(pid: number): Record<string, number> {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const fields: Record<string, number> = {};
  for (const [, name, kib] of text.matchAll(/^(\w+):\s+(\d+) kB$/gm))
    if (name !== undefined) fields[name] = Number(kib) * 1024;
  return fields;
}

/** prom-client's default metrics of the process: the heap and what lies outside it, in bytes. */
async function heapFigures(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
  const space = (name: string) =>
    value(new RegExp(`^nodejs_heap_space_size_used_bytes\\{space="${name}"[^}]*\\} (\\S+)$`, 'm'));
  return {
    heapTotal: value(/^nodejs_heap_size_total_bytes(?:\{[^}]*\})? (\S+)$/m),
    heapUsed: value(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m),
    oldUsed: space('old'),
    codeUsed: space('code'),
    newUsed: space('new'),
    external: value(/^nodejs_external_memory_bytes(?:\{[^}]*\})? (\S+)$/m),
  };
}

const census = values.modules ? mkdtempSync(join(tmpdir(), 'meerkat-modules-')) : undefined;
const nodeOptions = [
  values['node-options'],
  census === undefined ? '' : `--import ${moduleCensusHooks(census)}`,
].join(' ');
const workload: Workload = {
  monitors: 0,
  everySeconds: 20,
  warmupSeconds: 0,
  windowSeconds: 20,
  workers: 1,
  targetUrl: 'http://127.0.0.1:9',
  nodeOptions: nodeOptions.trim(),
  // The compiled build is what bin/meerkat.js runs when current; PostgreSQL's durability does not change memory.
  production: false,
};

const systems: RunningSystem[] = [];
try {
  say(
    `starting Meerkat split and meerkat dev without monitors; NODE_OPTIONS: ${workload.nodeOptions || 'none'}`,
  );
  systems.push(await startMeerkatSplit(workload));
  systems.push(await startMeerkatDev(workload));
  say(`settling ${settleSeconds} s`);
  await sleep(settleSeconds * 1000);
  say('');
  say('| process | RSS | PSS | anonymous | V8 heap total | heap used | old space | code space | external |');
  say('|---|---|---|---|---|---|---|---|---|');
  for (const system of systems) {
    for (const [name, roots] of Object.entries(system.components)) {
      const memory = treePids(roots).map(smapsRollup);
      const sum = (field: string) => memory.reduce((total, one) => total + (one[field] ?? 0), 0);
      const url = system.metricsUrls?.[name];
      const heap = url === undefined ? {} : await heapFigures(url);
      say(
        `| ${name} | ${mib(sum('Rss'))} | ${mib(sum('Pss'))} | ${mib(sum('Anonymous'))} | ` +
          `${mib(heap.heapTotal)} | ${mib(heap.heapUsed)} | ${mib(heap.oldUsed)} | ${mib(heap.codeUsed)} | ` +
          `${mib(heap.external)} |`,
      );
      if (census !== undefined && url !== undefined) {
        const pid = roots[0] ?? 0;
        writeFileSync(join(census, `${pid}.dump`), '');
        await sleep(1_500);
        say(`  ${name} loaded: ${loadedPackages(census, pid)}`);
      }
    }
  }
  say('(MiB; PostgreSQL counts with its backends)');
} finally {
  for (const system of systems.reverse()) await system.stop();
  if (census !== undefined) rmSync(census, { recursive: true, force: true });
}
