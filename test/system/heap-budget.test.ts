import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  exposedCollector,
  HEAP_BUDGET_CHECK_MS,
  HEAP_BUDGET_MIN_ROOM_BYTES,
  HeapBudget,
  heapBudgetPolicyOf,
  nextHeapBudget,
  startHeapBudget,
  type HeapBudgetCollection,
} from '../../hub/src/system/heap-budget.js';

const MIB = 1024 * 1024;

/**
 * A heap whose committed size the test sets, and a collector that leaves `live` MiB of objects and `kept` MiB
 * committed: what a check sees, what a collection costs (5 ms of wall time, 8 ms of CPU) and what it reported.
 */
function fakeHeap(policy = { floorBytes: 100 * MIB, growthPercent: 50 }) {
  const heap = { committed: 0, used: 0, live: 0, kept: 0, collections: 0, clockMs: 0, cpuMicros: 0 };
  const reported: HeapBudgetCollection[] = [];
  const budget = new HeapBudget(policy, {
    heapBytes: () => heap.committed * MIB,
    liveBytes: () => heap.used * MIB,
    collect: () => {
      heap.collections += 1;
      heap.used = heap.live;
      heap.committed = heap.kept;
      heap.clockMs += 5;
      heap.cpuMicros += 8_000;
    },
    nowMs: () => heap.clockMs,
    cpuMicros: () => heap.cpuMicros,
    onCollected: (collection) => reported.push(collection),
  });
  return { heap, reported, budget };
}

describe('the heap budget', () => {
  it('collects only when the committed heap passes the budget, at least the floor', () => {
    const { heap, reported, budget } = fakeHeap();
    [heap.live, heap.kept, heap.committed] = [40, 60, 100];
    expect(budget.check()).toBe(false);
    heap.committed = 101;
    expect(budget.check()).toBe(true);
    expect(reported).toEqual([
      {
        beforeBytes: 101 * MIB,
        after: { liveBytes: 40 * MIB, committedBytes: 60 * MIB },
        budgetBytes: 100 * MIB,
        seconds: 0.005,
        cpuSeconds: 0.008,
      },
    ]);
  });

  it('follows what survived the last collection: live plus the room, so a larger fleet raises it', () => {
    const { heap, reported, budget } = fakeHeap();
    [heap.live, heap.kept, heap.committed] = [200, 230, 250];
    budget.check();
    expect(budget.budgetBytes).toBe(300 * MIB);
    heap.committed = 299;
    expect(budget.check()).toBe(false);
    [heap.live, heap.kept, heap.committed] = [60, 80, 301];
    expect(budget.check()).toBe(true);
    expect(reported.map((c) => c.budgetBytes / MIB)).toEqual([300, 100]);
  });

  it('never collects in a loop: a heap that keeps what it had waits until it grows by the room', () => {
    const { heap, budget } = fakeHeap({ floorBytes: 10 * MIB, growthPercent: 10 });
    [heap.live, heap.kept, heap.committed] = [500, 520, 600];
    const collected = Array.from({ length: 100 }, () => budget.check()).filter(Boolean);
    expect(collected).toHaveLength(1);
    expect(heap.collections).toBe(1);
    heap.committed = 550;
    expect(budget.check()).toBe(false);
    heap.committed = 551;
    expect(budget.check()).toBe(true);
  });

  it('never collects in a loop when the heap stays committed far above what survived', () => {
    const { heap, budget } = fakeHeap({ floorBytes: 10 * MIB, growthPercent: 10 });
    [heap.live, heap.kept, heap.committed] = [20, 60, 61];
    expect(budget.check()).toBe(true);
    expect(budget.budgetBytes).toBe(60 * MIB + HEAP_BUDGET_MIN_ROOM_BYTES);
    expect(Array.from({ length: 100 }, () => budget.check()).filter(Boolean)).toHaveLength(0);
  });

  it('is at least the floor, the room above what survived, and a step above what stays committed', () => {
    for (const liveMiB of [0, 1, 50, 109, 110, 111, 4096])
      for (const extraMiB of [0, 32, 500])
        for (const growthPercent of [10, 50, 1000]) {
          const after = { liveBytes: liveMiB * MIB, committedBytes: (liveMiB + extraMiB) * MIB };
          const next = nextHeapBudget(after, { floorBytes: 110 * MIB, growthPercent });
          expect(next).toBeGreaterThanOrEqual(110 * MIB);
          expect(next).toBeGreaterThanOrEqual(after.committedBytes + HEAP_BUDGET_MIN_ROOM_BYTES);
          expect(next).toBeGreaterThanOrEqual(Math.ceil((after.liveBytes * (100 + growthPercent)) / 100));
        }
    const policy = { floorBytes: 110 * MIB, growthPercent: 10 };
    expect(nextHeapBudget({ liveBytes: 200 * MIB, committedBytes: 210 * MIB }, policy)).toBe(226 * MIB);
    expect(nextHeapBudget({ liveBytes: 200 * MIB, committedBytes: 200 * MIB }, policy)).toBe(220 * MIB);
    expect(nextHeapBudget({ liveBytes: 50 * MIB, committedBytes: 80 * MIB }, policy)).toBe(110 * MIB);
  });

  it('collects nothing once stopped', () => {
    const { heap, budget } = fakeHeap();
    heap.committed = 500;
    budget.stop();
    expect(budget.check()).toBe(false);
    expect(heap.collections).toBe(0);
  });

  it('is on at 110 MiB for meerkat dev, off for the others unless HEAP_BUDGET_MIB sets it', () => {
    const of = (processKind: 'dev' | 'worker', HEAP_BUDGET_MIB: number | undefined) =>
      heapBudgetPolicyOf({ processKind, HEAP_BUDGET_MIB, HEAP_BUDGET_GROWTH_PERCENT: 50 });
    expect(of('dev', undefined)).toEqual({ floorBytes: 110 * MIB, growthPercent: 50 });
    expect(of('dev', 0)).toBeUndefined();
    expect(of('worker', undefined)).toBeUndefined();
    expect(of('worker', 160)).toEqual({ floorBytes: 160 * MIB, growthPercent: 50 });
  });
});

describe('the heap budget of a process', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gets V8's collector at runtime", () => {
    const collect = exposedCollector();
    expect(typeof collect).toBe('function');
    expect(() => collect?.()).not.toThrow();
  });

  const started = (registry: Registry) =>
    startHeapBudget(
      { processKind: 'worker', HEAP_BUDGET_MIB: 1, HEAP_BUDGET_GROWTH_PERCENT: 10 },
      registry,
      pino({ level: 'silent' }),
    );
  const collections = async (registry: Registry) =>
    (await registry.getSingleMetric('meerkat_heap_budget_collections_total')?.get())?.values[0]?.value;

  it('checks on its timer and counts its collections and their time', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const registry = new Registry();
    const budget = started(registry);
    expect(await collections(registry)).toBe(0);
    vi.advanceTimersByTime(HEAP_BUDGET_CHECK_MS);
    expect(await collections(registry)).toBe(1);
    const seconds = await registry.getSingleMetric('meerkat_heap_budget_collection_seconds_total')?.get();
    expect(seconds?.values[0]?.value).toBeGreaterThan(0);
    await budget.close();
  });

  it('stops checking when closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const registry = new Registry();
    await started(registry).close();
    vi.advanceTimersByTime(10 * HEAP_BUDGET_CHECK_MS);
    expect(await collections(registry)).toBe(0);
  });
});
