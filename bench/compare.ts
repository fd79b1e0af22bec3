// The side-by-side benchmark of issue #24 (`npm run bench:compare -- --monitors 2000 --every 20`): the same
// work (N monitors, each one GET to a local target plus a status check, every S seconds) against Meerkat split
// (hub, scheduler, worker, PostgreSQL, Redis), `meerkat dev` and Prometheus + blackbox_exporter, one after the
// other. For each: warm-up, then CPU of every process of the system over a window divided by the checks done,
// checks done against expected, RSS, lateness p99. Everything listens on loopback. Every step is bounded and a
// step that fails says which and how the system's processes were; everything started is stopped at the end,
// on errors and on Ctrl-C (a second Ctrl-C kills at once). See docs/benchmarks.md.
import { startBenchTarget } from './compare/bench-target.js';
import { buildCompiledCli } from './compiled-cli.js';
import {
  measureWindow,
  type RunningSystem,
  type WindowResult,
  type Workload,
} from './compare/bench-system.js';
import { installBlackboxWhenMissing, startBlackbox } from './compare/blackbox.js';
import { within } from './compare/bounded.js';
import { parseCompareOptions, type SystemName } from './compare/compare-options.js';
import { machineLine } from './compare/machine.js';
import { startMeerkatDev } from './compare/meerkat-dev.js';
import { startMeerkatSplit } from './compare/meerkat-split.js';
import { reportNotes, reportTable } from './compare/report.js';

const STOP_MS = 90_000;
const starters: Record<SystemName, (workload: Workload) => Promise<RunningSystem>> = {
  split: startMeerkatSplit,
  dev: startMeerkatDev,
  blackbox: startBlackbox,
};
const say = (line: string) => process.stdout.write(`${line}\n`);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** The message and every cause's message not already in it: undici's "fetch failed" names nothing on its own. */
function withCauses(error: unknown): string {
  let text = message(error);
  for (let cause = error instanceof Error ? error.cause : undefined; cause !== undefined;) {
    const own =
      cause instanceof Error && 'code' in cause
        ? `${message(cause)} (${String(cause.code)})`
        : message(cause);
    if (!text.includes(message(cause))) text += `: ${own}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted.signal.aborted) {
      say(`${signal} again: killing everything`);
      process.exit(130);
    }
    say(`${signal}: stopping after the current step`);
    interrupted.abort(new Error(`interrupted by ${signal}`));
  });
}

/** What must be stopped before the benchmark exits, newest last. */
const running: Array<{ name: string; stop: () => Promise<unknown> }> = [];
async function stopNewest(): Promise<void> {
  const newest = running.pop();
  if (newest === undefined) return;
  const startedMs = Date.now();
  await within(`stopping ${newest.name}`, STOP_MS, newest.stop()).then(
    () => say(`${newest.name}: stopped in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`),
    (error: unknown) => say(`${newest.name}: ${message(error)}`),
  );
}

function printResults(results: readonly WindowResult[], workload: Workload): void {
  if (results.length === 0) return;
  say('');
  for (const line of [...reportTable(results, workload), '', ...reportNotes(results)]) say(line);
}

let exitCode = 0;
try {
  const options = parseCompareOptions(process.argv.slice(2));
  // bin/meerkat.js runs dist/ while no source is newer than its build: build it now, so every process runs it.
  if (options.production) buildCompiledCli(say);
  if (options.systems.includes('blackbox')) installBlackboxWhenMissing(say);
  const target = await startBenchTarget();
  running.push({ name: 'bench target', stop: () => target.stop() });
  const workload: Workload = {
    monitors: options.monitors,
    everySeconds: options.every,
    warmupSeconds: options.warmup,
    windowSeconds: options.window,
    workers: options.workers,
    schedulerInWorker: options['scheduler-in-worker'],
    workerInHub: options['worker-in-hub'],
    targetUrl: target.url,
    production: options.production,
    nodeOptions: options['node-options'],
    mallocArenaMax: options['malloc-arena-max'],
    mallocTrimThreshold: options['malloc-trim-threshold'],
    processEnv: options.env,
  };
  say(machineLine());
  say(
    `work: ${workload.monitors} monitors every ${workload.everySeconds} s, warm-up ${workload.warmupSeconds} s, ` +
      `window ${workload.windowSeconds} s; systems ${options.systems.join(', ')}; ` +
      `${workload.workers} worker process(es) in split` +
      (workload.workerInHub === true ? ' (the hub is the first)' : '') +
      (workload.schedulerInWorker === true ? ', the first with the scheduler' : '') +
      (workload.nodeOptions === '' ? '' : `; NODE_OPTIONS of Meerkat: ${workload.nodeOptions}`) +
      (workload.mallocArenaMax === undefined ? '' : `; MALLOC_ARENA_MAX ${workload.mallocArenaMax}`) +
      (workload.mallocTrimThreshold === undefined
        ? ''
        : `; MALLOC_TRIM_THRESHOLD_ ${workload.mallocTrimThreshold}`) +
      Object.entries(options.env)
        .flatMap(([name, vars]) => Object.entries(vars).map(([key, value]) => `; ${name}'s ${key}=${value}`))
        .join(''),
  );
  say(
    options.production
      ? 'mode: production (PostgreSQL fsync on, compiled build, NODE_ENV=production)'
      : 'mode: development (PostgreSQL fsync off; the compiled build when current, else the sources)',
  );
  const results: WindowResult[] = [];
  try {
    for (const name of options.systems) {
      interrupted.signal.throwIfAborted();
      say(`${name}: starting, with ${workload.monitors} monitors`);
      const system = await starters[name](workload);
      running.push({ name, stop: () => system.stop() });
      try {
        results.push(await measureWindow(system, workload, target, { say, signal: interrupted.signal }));
      } catch (error) {
        if (interrupted.signal.aborted) throw interrupted.signal.reason;
        throw new Error(`${name}: ${message(error)}\n  ${system.diagnose().join('\n  ')}`, { cause: error });
      }
      await stopNewest();
    }
  } finally {
    printResults(results, workload);
  }
} catch (error) {
  exitCode = interrupted.signal.aborted ? 130 : 1;
  say(`failed: ${withCauses(error)}`);
} finally {
  while (running.length > 0) await stopNewest();
  // Exits even if a bounded step that timed out left a socket or timer behind.
  process.exit(exitCode);
}
