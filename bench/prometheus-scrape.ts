// What one Prometheus scrape of a worker costs at fleet size (`npx tsx bench/prometheus-scrape.ts [--monitors N]
// [--scrapes S]`): a worker's registry with the run series of N monitors (each with one run recorded), scraped S
// times; prints the median scrape's wall time, the CPU it took, its size, and the longest the event loop went
// without a turn during the scrapes: how long a worker's checks and ticks wait behind one scrape.
// docs/benchmarks.md has the figures.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createRunOutcomeMetrics } from '../hub/src/metrics/prometheus/run-outcome-metrics.js';
import type { RunFinishedHook } from '../hub/src/runs/run-finished.js';
import { createMetricsRegistry } from '../hub/src/system/metrics-registry.js';

const { values } = parseArgs({
  options: { monitors: { type: 'string', default: '20000' }, scrapes: { type: 'string', default: '5' } },
});
const monitors = Number(values.monitors);
const scrapes = Number(values.scrapes);
if (!Number.isInteger(monitors) || monitors < 1 || !Number.isInteger(scrapes) || scrapes < 1)
  throw new Error('--monitors and --scrapes must be positive integers');

const catalog = Array.from({ length: monitors }, (_, i) => ({
  organizationId: `org-${i % 10}`,
  monitorId: `bench-${String(i).padStart(5, '0')}`,
  name: `bench ${i}`,
  project: 'bench',
  environment: 'production',
  locations: ['default'],
}));
const registry = createMetricsRegistry('worker');
const hook: RunFinishedHook = createRunOutcomeMetrics(registry, {
  read: () => Promise.resolve(catalog),
  locations: ['default'],
});
const finished = catalog.map((m, i) => ({
  organization_id: m.organizationId,
  monitor_id: m.monitorId,
  location: 'default',
  environment: m.environment,
  success: i % 50 !== 0,
  duration_ms: 20 + (i % 200),
  steps: null,
}));
// The hook reads only the finished runs' fields above; it is given no transaction.
await hook.onRunsFinished(undefined as never, finished as never);

// What the metrics server writes: the scrape's chunks, one by one, never joined.
const scrape = async () => (await registry.metricsChunks()).reduce((sum, chunk) => sum + chunk.length, 0);
await scrape(); // the first scrape builds the zero series of the catalog
const delay = monitorEventLoopDelay({ resolution: 10 });
const walls: number[] = [];
const cpus: number[] = [];
let bytes = 0;
delay.enable();
for (let i = 0; i < scrapes; i += 1) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  bytes = await scrape();
  walls.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  cpus.push((used.user + used.system) / 1000);
  // A turn of the event loop, so that a scrape that never gave one is measured whole.
  await sleep(20);
}
delay.disable();
const median = (all: number[]) => [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)] ?? 0;
process.stdout.write(
  `${monitors} monitors, ${scrapes} scrapes: median ${median(walls).toFixed(0)} ms wall, ` +
    `${median(cpus).toFixed(0)} ms CPU, ${(bytes / 1e6).toFixed(1)} MB; event loop blocked at most ` +
    `${(delay.max / 1e6).toFixed(0)} ms\n`,
);
