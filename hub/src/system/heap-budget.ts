import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metrics-registry.js';

const MIB = 1024 * 1024;

/** How often the heap is compared with its budget: reading V8's heap statistics costs microseconds. */
export const HEAP_BUDGET_CHECK_MS = 1_000;

/** HEAP_BUDGET_MIB when unset: `meerkat dev` collects above 110 MiB (docs/adr/0071), other processes never. */
const DEFAULT_DEV_HEAP_BUDGET_MIB = 110;

export interface HeapBudgetPolicy {
  /** The budget is never below this many bytes of committed V8 heap. */
  floorBytes: number;
  /** Room above what the last forced collection left, in percent of it. */
  growthPercent: number;
}

/**
 * The least the committed heap must grow after a forced collection before the next: the young generation's pages
 * (up to 32 MiB) stay committed through a full collection, so what survived can be well below what is committed.
 */
export const HEAP_BUDGET_MIN_ROOM_BYTES = 16 * MIB;

/** What the heap holds right after a forced collection, bytes. */
export interface HeapAfterCollection {
  /** What survived: `used_heap_size`. */
  liveBytes: number;
  /** Its committed size: `total_heap_size`. */
  committedBytes: number;
}

/**
 * The budget after a forced collection: what survived plus the room, at least the floor, and at least
 * HEAP_BUDGET_MIN_ROOM_BYTES above what the heap still commits. So the heap must grow again before the next
 * collection, and a fleet whose live heap is above the floor raises the budget with it instead of being collected
 * at every check.
 */
export function nextHeapBudget(after: HeapAfterCollection, policy: HeapBudgetPolicy): number {
  const room = Math.ceil((after.liveBytes * policy.growthPercent) / 100);
  return Math.max(
    policy.floorBytes,
    after.liveBytes + room,
    after.committedBytes + HEAP_BUDGET_MIN_ROOM_BYTES,
  );
}

/** One forced collection, as the policy reports it. */
export interface HeapBudgetCollection {
  /** The committed heap that passed the budget. */
  beforeBytes: number;
  after: HeapAfterCollection;
  /** The new budget. */
  budgetBytes: number;
  /** Wall time the collection held the event loop, seconds. */
  seconds: number;
  /** Process CPU (every thread) spent while it ran, seconds. */
  cpuSeconds: number;
}

export interface HeapBudgetDependencies {
  /** The V8 heap's committed size, bytes (`v8.getHeapStatistics().total_heap_size`). */
  heapBytes: () => number;
  /** What the V8 heap's objects take, bytes (`used_heap_size`): right after a full collection, what survived. */
  liveBytes: () => number;
  /** A full, synchronous collection. */
  collect: () => void;
  /** Monotonic milliseconds. */
  nowMs: () => number;
  /** The process's CPU so far, microseconds (user and system, every thread). */
  cpuMicros: () => number;
  onCollected: (collection: HeapBudgetCollection) => void;
}

/**
 * A collection forced when the V8 heap passes a budget that follows its live size (docs/adr/0071): V8 lets the
 * old generation grow to a few times what survived its last full collection, and keeps the pages, so a process
 * that allocates by the thousand a second holds mostly garbage. `check` is called on a timer; after each forced
 * collection the budget is what survived plus `growthPercent`, at least `floorBytes` (nextHeapBudget).
 */
export class HeapBudget {
  #budget: number;
  #stopped = false;

  constructor(
    readonly policy: HeapBudgetPolicy,
    private readonly dependencies: HeapBudgetDependencies,
  ) {
    this.#budget = policy.floorBytes;
  }

  get budgetBytes(): number {
    return this.#budget;
  }

  /** Collects when the heap is above the budget and the budget is not stopped; true when it collected. */
  check(): boolean {
    if (this.#stopped) return false;
    const beforeBytes = this.dependencies.heapBytes();
    if (beforeBytes <= this.#budget) return false;
    const [startMs, startCpu] = [this.dependencies.nowMs(), this.dependencies.cpuMicros()];
    this.dependencies.collect();
    const seconds = (this.dependencies.nowMs() - startMs) / 1000;
    const cpuSeconds = (this.dependencies.cpuMicros() - startCpu) / 1e6;
    const after = { liveBytes: this.dependencies.liveBytes(), committedBytes: this.dependencies.heapBytes() };
    this.#budget = nextHeapBudget(after, this.policy);
    this.dependencies.onCollected({
      beforeBytes,
      after,
      budgetBytes: this.#budget,
      seconds,
      cpuSeconds,
    });
    return true;
  }

  stop(): void {
    this.#stopped = true;
  }
}

const isCollector = (value: unknown): value is () => void => typeof value === 'function';

/**
 * V8's full collection as a function, or undefined when V8 does not give it: `--expose-gc` set at runtime puts
 * `gc` on the global of contexts made after it, not on the main one, so a new context hands it over. No other
 * code of the hub makes contexts (the runner's assertions do not run in `vm`).
 */
export function exposedCollector(): (() => void) | undefined {
  v8.setFlagsFromString('--expose-gc');
  const candidate: unknown = vm.runInNewContext('gc');
  return isCollector(candidate) ? candidate : undefined;
}

/** The settings of the budget (config/settings.ts), and the process kind, whose default it depends on. */
export interface HeapBudgetSettings {
  HEAP_BUDGET_MIB?: number | undefined;
  HEAP_BUDGET_GROWTH_PERCENT: number;
  processKind: string;
}

/** The policy HEAP_BUDGET_MIB and HEAP_BUDGET_GROWTH_PERCENT give, or undefined when the budget is off. */
export function heapBudgetPolicyOf(settings: Readonly<HeapBudgetSettings>): HeapBudgetPolicy | undefined {
  const mib = settings.HEAP_BUDGET_MIB ?? (settings.processKind === 'dev' ? DEFAULT_DEV_HEAP_BUDGET_MIB : 0);
  return mib === 0
    ? undefined
    : { floorBytes: mib * MIB, growthPercent: settings.HEAP_BUDGET_GROWTH_PERCENT };
}

/** The collections a budget forced and their cost, beside prom-client's process and heap metrics. */
function heapBudgetMetrics(registry: Registry, initialBudgetBytes: number) {
  const registers = [registry];
  const collections = new Counter({
    name: `${METRIC_PREFIX}heap_budget_collections_total`,
    help: 'Full collections the heap budget forced (HEAP_BUDGET_MIB).',
    registers,
  });
  const seconds = new Counter({
    name: `${METRIC_PREFIX}heap_budget_collection_seconds_total`,
    help: 'Time the forced collections held the event loop.',
    registers,
  });
  const cpuSeconds = new Counter({
    name: `${METRIC_PREFIX}heap_budget_collection_cpu_seconds_total`,
    help: 'Process CPU, every thread, spent while the forced collections ran.',
    registers,
  });
  const budget = new Gauge({
    name: `${METRIC_PREFIX}heap_budget_bytes`,
    help: 'Committed V8 heap above which the next collection is forced.',
    registers,
  });
  budget.set(initialBudgetBytes);
  return (collection: HeapBudgetCollection) => {
    collections.inc();
    seconds.inc(collection.seconds);
    cpuSeconds.inc(collection.cpuSeconds);
    budget.set(collection.budgetBytes);
  };
}

export interface RunningHeapBudget {
  close(): Promise<void>;
}

/**
 * Starts the heap budget of a process when its settings turn it on: a check every HEAP_BUDGET_CHECK_MS on a
 * timer that does not keep the process alive, and its metrics in `registry`. Stopped by `close`.
 */
export function startHeapBudget(
  settings: Readonly<HeapBudgetSettings>,
  registry: Registry,
  log: Logger,
): RunningHeapBudget {
  const policy = heapBudgetPolicyOf(settings);
  if (policy === undefined) return { close: async () => {} };
  const collect = exposedCollector();
  if (collect === undefined) {
    log.warn('heap budget off: V8 did not expose its collector');
    return { close: async () => {} };
  }
  const budget = new HeapBudget(policy, {
    heapBytes: () => v8.getHeapStatistics().total_heap_size,
    liveBytes: () => v8.getHeapStatistics().used_heap_size,
    collect,
    nowMs: () => performance.now(),
    cpuMicros: () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    },
    onCollected: heapBudgetMetrics(registry, policy.floorBytes),
  });
  const timer = setInterval(() => budget.check(), HEAP_BUDGET_CHECK_MS);
  timer.unref();
  log.info(
    { floorMiB: policy.floorBytes / MIB, growthPercent: policy.growthPercent },
    'heap budget on: a full collection when the V8 heap passes it',
  );
  return {
    close: () => {
      clearInterval(timer);
      budget.stop();
      return Promise.resolve();
    },
  };
}
