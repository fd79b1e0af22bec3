// What every system of the side-by-side benchmark offers the window runner, and the runner itself: warm up,
// then read CPU and memory of each component's processes over the window, and ask the system what it did.
// Every wait is bounded or abortable (Ctrl-C), and a component that dies fails the window at once.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchTarget } from './bench-target.js';
import { within } from './bounded.js';
import { isAlive, treeCpuSeconds, treeMemory, type Memory } from './process-tree.js';

export interface Workload {
  monitors: number;
  everySeconds: number;
  warmupSeconds: number;
  windowSeconds: number;
  /** Worker processes of Meerkat split (`--workers`); the other systems are one process or pair. */
  workers: number;
  /** `--scheduler-in-worker`: Meerkat split's first worker keeps the schedules, and no scheduler process runs. */
  schedulerInWorker?: boolean;
  /** `--worker-in-hub`: Meerkat split's hub is its first worker (`hub --locations default`), no worker process. */
  workerInHub?: boolean;
  /** The target every check GETs, e.g. `http://127.0.0.1:41234`. */
  targetUrl: string;
  /** `--production`: PostgreSQL durable (fsync on) and Meerkat's compiled build with NODE_ENV=production. */
  production: boolean;
  /** NODE_OPTIONS of Meerkat's processes (`--node-options`), e.g. V8 flags to compare; none when empty. */
  nodeOptions: string;
  /**
   * MALLOC_ARENA_MAX of Meerkat's processes (`--malloc-arena-max`): glibc's malloc arenas, one per thread by
   * default, each keeping what its thread freed; undefined: glibc's default.
   */
  mallocArenaMax?: number | undefined;
  /** MALLOC_TRIM_THRESHOLD_ of Meerkat's processes (`--malloc-trim-threshold`), in bytes; undefined: glibc's. */
  mallocTrimThreshold?: number | undefined;
  /** Variables of one process of split (`--env`): hub, scheduler, and every worker. */
  processEnv?: Readonly<Record<'hub' | 'scheduler' | 'worker', Record<string, string>>>;
}

/** The environment a Meerkat process of the benchmark gets on top of its own settings. */
export const modeEnvironment = (workload: Workload): Record<string, string> => ({
  ...(workload.production ? { NODE_ENV: 'production' } : {}),
  ...(workload.nodeOptions === '' ? {} : { NODE_OPTIONS: workload.nodeOptions }),
  ...(workload.mallocArenaMax === undefined ? {} : { MALLOC_ARENA_MAX: String(workload.mallocArenaMax) }),
  ...(workload.mallocTrimThreshold === undefined
    ? {}
    : { MALLOC_TRIM_THRESHOLD_: String(workload.mallocTrimThreshold) }),
});

export interface CheckFigures {
  expected: number;
  done: number;
  /** Checks done whose status check did not pass. */
  failed: number;
  /** Extra checks of one slot (Meerkat: rows beyond the first per slot); undefined where not measurable. */
  duplicated?: number;
  /** Due slots without a check (Meerkat). */
  missing?: number;
  /** Checks of the window still going when read (Meerkat). */
  unfinished?: number;
  latenessP99Ms?: number;
  /** How done and lateness were measured. */
  note: string;
}

export interface RunningSystem {
  label: string;
  /** Component name -> root pids; each root counts with its direct children. */
  components: Record<string, number[]>;
  /** Component name -> its Prometheus endpoint, for the processes that have one (Meerkat's). */
  metricsUrls?: Record<string, string>;
  /** Counters of work (PostgreSQL transactions, Redis commands), read as the window opens and as it closes. */
  counters?(): Promise<Record<string, number>>;
  /** What the system did for the slots of [fromMs, toMs), read once the window's last checks have ended. */
  figures(fromMs: number, toMs: number): Promise<CheckFigures>;
  /** States and log tails of the system's processes, for the message of a step that failed. */
  diagnose(): string[];
  stop(): Promise<void>;
}

export interface WindowResult {
  label: string;
  figures: CheckFigures;
  /** CPU seconds of each component over the window. */
  cpuSeconds: Record<string, number>;
  /** Largest sums of RSS and of PSS over all components seen during the window. */
  memory: Memory;
  /** Largest RSS and PSS of each component seen during the window. */
  componentMemory: Record<string, Memory>;
  targetRequests: number;
  /** How much each of the system's counters grew over the window. */
  counters: Record<string, number>;
  loadStart: number[];
  loadEnd: number[];
}

const MEMORY_SAMPLE_MS = 5_000;
/** Checks of the window's last slots end (and are written) a little after it closes. */
const SETTLE_MS = 15_000;
const COUNTERS_MS = 10_000;
const FIGURES_MS = 120_000;

function assertRunning(system: RunningSystem, during: string): void {
  for (const [name, pids] of Object.entries(system.components)) {
    const dead = pids.filter((pid) => !isAlive(pid));
    if (dead.length > 0) throw new Error(`${name} (pid ${dead.join(', ')}) ended during ${during}`);
  }
}

const mapComponents = (system: RunningSystem, read: (pids: number[]) => number) =>
  Object.fromEntries(Object.entries(system.components).map(([name, pids]) => [name, read(pids)]));

const largest = (a: Memory, b: Memory): Memory => ({
  rssBytes: Math.max(a.rssBytes, b.rssBytes),
  pssBytes: Math.max(a.pssBytes, b.pssBytes),
});

async function readCounters(system: RunningSystem): Promise<Record<string, number>> {
  if (system.counters === undefined) return {};
  return within(`reading the counters of ${system.label}`, COUNTERS_MS, system.counters());
}

export async function measureWindow(
  system: RunningSystem,
  workload: Workload,
  target: BenchTarget,
  options: { say: (line: string) => void; signal: AbortSignal },
): Promise<WindowResult> {
  const { say, signal } = options;
  say(`${system.label}: warming up ${workload.warmupSeconds} s`);
  await sleep(workload.warmupSeconds * 1000, undefined, { signal });
  assertRunning(system, 'the warm-up');
  const countersBefore = await readCounters(system);
  const requestsBefore = await target.requests();
  const cpuBefore = mapComponents(system, treeCpuSeconds);
  const fromMs = Date.now();
  const loadStart = loadavg();
  say(`${system.label}: measuring ${workload.windowSeconds} s (load average ${formatLoad(loadStart)})`);
  let memory: Memory = { rssBytes: 0, pssBytes: 0 };
  const componentMemory: Record<string, Memory> = {};
  const windowEnds = fromMs + workload.windowSeconds * 1000;
  for (let now = Date.now(); now < windowEnds; now = Date.now()) {
    await sleep(Math.min(MEMORY_SAMPLE_MS, windowEnds - now), undefined, { signal });
    const sum = { rssBytes: 0, pssBytes: 0 };
    for (const [name, pids] of Object.entries(system.components)) {
      const sample = treeMemory(pids);
      componentMemory[name] = largest(componentMemory[name] ?? sample, sample);
      sum.rssBytes += sample.rssBytes;
      sum.pssBytes += sample.pssBytes;
    }
    memory = largest(memory, sum);
    assertRunning(system, 'the window');
  }
  const cpuAfter = mapComponents(system, treeCpuSeconds);
  const toMs = Date.now();
  const requestsAfter = await target.requests();
  const countersAfter = await readCounters(system);
  const loadEnd = loadavg();
  say(
    `${system.label}: window closed (load average ${formatLoad(loadEnd)}); ` +
      `reading what it did in ${SETTLE_MS / 1000} s, once its last checks have ended`,
  );
  await sleep(SETTLE_MS, undefined, { signal });
  const figures = await within(`reading what ${system.label} did`, FIGURES_MS, system.figures(fromMs, toMs));
  return {
    label: system.label,
    figures,
    cpuSeconds: Object.fromEntries(
      Object.entries(cpuAfter).map(([name, after]) => [name, after - (cpuBefore[name] ?? 0)]),
    ),
    memory,
    componentMemory,
    targetRequests: requestsAfter - requestsBefore,
    counters: Object.fromEntries(
      Object.entries(countersAfter).map(([name, after]) => [name, after - (countersBefore[name] ?? 0)]),
    ),
    loadStart,
    loadEnd,
  };
}

export function formatLoad(load: number[]): string {
  return load.map((value) => value.toFixed(2)).join(' ');
}
