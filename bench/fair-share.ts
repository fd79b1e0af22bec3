// Issue 33's fair share, measured (`npm run bench:fair-share`): organization A with 20,000 monitors every 10 s and
// organization B with 20 at the same frequency, all against a local target, on Meerkat split with ONE worker
// (hub, scheduler, worker, PostgreSQL and Redis of its own). A alone is more than the worker checks, so its slots
// are shed; B's must not be: after a warm-up, the slots due in a window are counted per organization from the
// database (each a run, a gap with its reason, or unreported) with the lateness of their runs, and the verdict
// says whether B's lateness p99 stayed under 1 s with no slot lost. `--control` runs B alone, for its baseline.
// Every step is bounded; everything started is stopped at the end, on errors and on Ctrl-C. See
// docs/benchmarks.md.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatLoad } from './compare/bench-system.js';
import { startBenchTarget } from './compare/bench-target.js';
import { within } from './compare/bounded.js';
import { machineLine } from './compare/machine.js';
import { createMonitors, monitorIds, readWindowGaps, readWindowRuns } from './compare/meerkat-monitors.js';
import { startSplitDeployment, withClient, type SplitDeployment } from './compare/meerkat-split.js';
import { isAlive, treeCpuSeconds } from './compare/process-tree.js';
import { schedulesOf } from './compare/window-figures.js';
import { parseFairShareOptions } from './fair-share/fair-share-options.js';
import {
  fairShareVerdict,
  figuresTable,
  organizationFigures,
  settled,
  type OrganizationFigures,
} from './fair-share/organization-figures.js';

const BIG = 'org-a';
const SMALL = 'org-b';
/**
 * How often the bench reads the worker's held slots from its metrics port: a whole scrape, as Prometheus' is, and
 * as often as kube-prometheus-stack scrapes a ServiceMonitor by default. At 20,000 monitors a scrape costs the
 * worker about 0.8 s of CPU (ADR 0060): every 5 s it took a sixth of the worker's time from the checks.
 */
const SAMPLE_MS = 30_000;
const QUERY_MS = 120_000;
const say = (line: string) => process.stdout.write(`${line}\n`);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (interrupted.signal.aborted) process.exit(130);
    say(`${signal}: stopping (again to kill everything)`);
    interrupted.abort(new Error(`interrupted by ${signal}`));
  });

/** The value of a worker metric with only the process's own labels, or undefined. */
async function workerSeries(deployment: SplitDeployment, name: string): Promise<number | undefined> {
  const answer = await fetch(deployment.byName('worker').metricsUrl, { signal: AbortSignal.timeout(5_000) });
  const line = (await answer.text())
    .split('\n')
    .find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function assertRunning(deployment: SplitDeployment): void {
  const pids = [deployment.pids.postgres, deployment.pids.redis];
  const dead = [...deployment.processes.map((p) => p.process.child.pid ?? 0), ...pids].filter(
    (p) => !isAlive(p),
  );
  if (dead.length > 0)
    throw new Error(`pids ${dead.join(', ')} ended\n  ${deployment.diagnose().join('\n  ')}`);
}

/** The processes measured, each with the pids its CPU is read from. */
const componentsOf = (deployment: SplitDeployment): Array<[string, number[]]> => [
  ...deployment.processes.map((p): [string, number[]] => [p.name, [p.process.child.pid ?? 0]]),
  ['PostgreSQL', [deployment.pids.postgres]],
  ['Redis', [deployment.pids.redis]],
];

/** The warnings and errors a process logged (pino levels 40 and up), most frequent first, with their counts. */
function warnings(log: string): string[] {
  const counts = new Map<string, number>();
  for (const line of log.split('\n')) {
    const match = /"level":(\d+).*?"msg":"([^"]*)"/.exec(line);
    if (match === null || Number(match[1]) < 40) continue;
    counts.set(match[2] ?? '', (counts.get(match[2] ?? '') ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([msg, n]) => `${n} x "${msg}" (warnings and errors of the window)`);
}

let exitCode = 0;
const stops: Array<() => Promise<unknown>> = [];
try {
  const options = parseFairShareOptions(process.argv.slice(2));
  const everyMs = options.every * 1000;
  say(machineLine());
  say(
    `work: ${BIG} ${options.aMonitors} monitors and ${SMALL} ${options.bMonitors}, every ${options.every} s, ` +
      `one worker (WORKER_CONCURRENCY ${options.workerConcurrency ?? 'default'}); warm-up ${options.warmup} s, ` +
      `window ${options.window} s${options.control ? '; control: B alone' : ''}`,
  );
  const target = await startBenchTarget();
  stops.push(() => target.stop());
  const deployment = await startSplitDeployment({
    workers: 1,
    organizations: [BIG, SMALL],
    env: {
      ...(options.workerConcurrency === undefined
        ? {}
        : { WORKER_CONCURRENCY: String(options.workerConcurrency) }),
      ...(options.nodeOptions === undefined ? {} : { NODE_OPTIONS: options.nodeOptions }),
    },
  });
  stops.push(() => deployment.stop());
  const apiUrl = deployment.byName('hub').url;
  const idsOf: Record<string, string[]> = {
    [BIG]: monitorIds(options.aMonitors, 'a'),
    [SMALL]: monitorIds(options.bMonitors, 'b'),
  };
  for (const organization of [BIG, SMALL]) {
    const ids = idsOf[organization] ?? [];
    if (ids.length === 0) continue;
    const startedMs = Date.now();
    const key = deployment.keys[organization] ?? '';
    await createMonitors({ apiUrl, key, ids, targetUrl: target.url, everySeconds: options.every });
    say(
      `${organization}: ${ids.length} monitors created in ${((Date.now() - startedMs) / 1000).toFixed(0)} s`,
    );
  }
  say(`warming up ${options.warmup} s`);
  await sleep(options.warmup * 1000, undefined, { signal: interrupted.signal });
  assertRunning(deployment);

  const components = componentsOf(deployment);
  const cpuBefore = components.map(([, pids]) => treeCpuSeconds(pids));
  const logBefore = Object.fromEntries(deployment.processes.map((p) => [p.name, p.process.output().length]));
  const fromMs = Date.now();
  const loads = [loadavg()];
  let heldMost = 0;
  say(`measuring ${options.window} s (load average ${formatLoad(loadavg())})`);
  for (const ends = fromMs + options.window * 1000; Date.now() < ends;) {
    await sleep(Math.min(SAMPLE_MS, ends - Date.now()), undefined, { signal: interrupted.signal });
    assertRunning(deployment);
    loads.push(loadavg());
    const held = await workerSeries(deployment, 'meerkat_worker_slots_held').catch(() => undefined);
    heldMost = Math.max(heldMost, held ?? 0);
  }
  const toMs = Date.now();
  const cores = components.map(
    ([name, pids], i) =>
      `${name} ${((treeCpuSeconds(pids) - (cpuBefore[i] ?? 0)) / ((toMs - fromMs) / 1000)).toFixed(2)}`,
  );
  say(
    `window closed (load average ${formatLoad(loadavg())}); waiting up to ${options.settle} s for its last slots`,
  );

  const read = (organization: string) =>
    withClient(deployment.databaseUrl, async (client) =>
      organizationFigures({
        organization,
        schedules: schedulesOf(organization, idsOf[organization] ?? [], everyMs),
        runs: await readWindowRuns(client, fromMs, toMs, organization),
        gaps: await readWindowGaps(client, fromMs, toMs, organization),
        fromMs,
        toMs,
      }),
    );
  const readAll = () =>
    within(
      'reading the window',
      QUERY_MS,
      Promise.all([BIG, SMALL].filter((o) => idsOf[o]?.length).map(read)),
    );
  let figures: OrganizationFigures[] = await readAll();
  for (const ends = Date.now() + options.settle * 1000; !figures.every(settled) && Date.now() < ends;) {
    await sleep(SAMPLE_MS, undefined, { signal: interrupted.signal });
    figures = await readAll();
  }
  const small = figures.find((row) => row.organization === SMALL);
  const load1 = loads.map((load) => load[0] ?? 0);
  say('');
  for (const line of figuresTable(figures)) say(line);
  say('');
  say(
    `window ${new Date(fromMs).toISOString()} to ${new Date(toMs).toISOString()}; 1-minute load average ` +
      `${Math.min(...load1).toFixed(2)}-${Math.max(...load1).toFixed(2)}; cores: ${cores.join(', ')}; ` +
      `slots held by the worker at most ${heldMost}; checks done ` +
      `${figures.reduce((sum, row) => sum + row.checksPerSecond, 0).toFixed(1)}/s`,
  );
  for (const p of deployment.processes)
    for (const line of warnings(p.process.output().slice(logBefore[p.name] ?? 0))) say(`${p.name}: ${line}`);
  if (small !== undefined) say(fairShareVerdict(small).line);
} catch (error) {
  exitCode = interrupted.signal.aborted ? 130 : 1;
  say(`failed: ${message(error)}`);
} finally {
  for (const stop of stops.reverse())
    await stop().catch((error: unknown) => say(`stopping: ${message(error)}`));
  process.exit(exitCode);
}
