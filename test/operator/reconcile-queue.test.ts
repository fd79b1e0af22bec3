// The reconcile queue with a reconcile that the test controls, so concurrency and retries can be counted.
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createReconcileQueue } from '../../operator/src/reconcile-queue.js';
import type { MonitorKey } from '../../operator/src/reconcile-monitor.js';

const log = pino({ level: 'silent' });
const keys = (count: number): MonitorKey[] =>
  Array.from({ length: count }, (_, index) => ({ namespace: 'shop', name: `m-${index}` }));

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('reconcile queue', () => {
  it('runs at most `workers` reconciles at once, each key once however often it is enqueued', async () => {
    let inFlight = 0;
    let most = 0;
    const passes = new Map<string, number>();
    const release = gate();
    const queue = createReconcileQueue({
      workers: 3,
      log,
      reconcile: async (key) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await release.opened;
        passes.set(key.name, (passes.get(key.name) ?? 0) + 1);
        inFlight -= 1;
        return undefined;
      },
    });
    for (const key of keys(20)) queue.enqueue(key);
    for (const key of keys(20).slice(5)) queue.enqueue(key);
    expect(queue.depth()).toBe(17);
    release.open();
    await vi.waitFor(() => expect(passes.size).toBe(20));
    expect(most).toBe(3);
    expect([...passes.values()].every((count) => count === 1)).toBe(true);
    await queue.stop();
  });

  it('a key failing with a waitable error waits for it, then runs again without a timer', async () => {
    const hubBack = gate();
    let attempts = 0;
    const queue = createReconcileQueue({
      log,
      // A retry timer this long would never fire within the test: only the gate can bring the key back.
      initialRetryMs: 3_600_000,
      waitBeforeRetry: (error) => ((error as Error).message === 'hub down' ? hubBack.opened : undefined),
      reconcile: () => {
        attempts += 1;
        return attempts === 1 ? Promise.reject(new Error('hub down')) : Promise.resolve(undefined);
      },
    });
    queue.enqueue({ namespace: 'shop', name: 'checkout' });
    await vi.waitFor(() => expect(attempts).toBe(1));
    expect(queue.has({ namespace: 'shop', name: 'checkout' })).toBe(true);
    hubBack.open();
    await vi.waitFor(() => expect(attempts).toBe(2));
    await vi.waitFor(() => expect(queue.has({ namespace: 'shop', name: 'checkout' })).toBe(false));
    await queue.stop();
  });

  it('when the hub returns, keys with a pending spec change run before the others', async () => {
    const hubBack = gate();
    const order: string[] = [];
    const queue = createReconcileQueue({
      log,
      workers: 1,
      waitBeforeRetry: () => hubBack.opened,
      isUrgent: (key) => key.name === 'm-7',
      reconcile: (key) => {
        order.push(key.name);
        return order.length <= 10 ? Promise.reject(new Error('hub down')) : Promise.resolve(undefined);
      },
    });
    for (const key of keys(10)) queue.enqueue(key);
    await vi.waitFor(() => expect(order).toHaveLength(10));
    hubBack.open();
    await vi.waitFor(() => expect(order).toHaveLength(20));
    expect(order[10]).toBe('m-7');
    await queue.stop();
  });

  it('an edit queued behind a backlog of refreshes is reconciled next', async () => {
    const first = gate();
    const order: string[] = [];
    const edited = new Set<string>();
    const queue = createReconcileQueue({
      log,
      workers: 1,
      isUrgent: (key) => edited.has(key.name),
      reconcile: async (key) => {
        order.push(key.name);
        if (order.length === 1) await first.opened;
        return undefined;
      },
    });
    // m-0 runs and holds the only worker; m-1..m-199 wait as refreshes; then m-150 is edited and m-new created.
    for (const key of keys(200)) queue.enqueue(key);
    await vi.waitFor(() => expect(order).toEqual(['m-0']));
    expect(queue.depth()).toBe(199);
    edited.add('m-150');
    queue.enqueue({ namespace: 'shop', name: 'm-150' });
    edited.add('m-new');
    queue.enqueue({ namespace: 'shop', name: 'm-new' });
    expect(queue.depth()).toBe(200);
    first.open();
    await vi.waitFor(() => expect(order).toHaveLength(201));
    expect(order.slice(0, 4)).toEqual(['m-0', 'm-150', 'm-new', 'm-1']);
    // Moved, not run twice: every key ran once.
    expect(new Set(order).size).toBe(201);
    expect(queue.depth()).toBe(0);
    await queue.stop();
  });

  it('when the hub returns, keys that only wanted a refresh are spread over the refresh period', async () => {
    const hubBack = gate();
    const passes: string[] = [];
    const queue = createReconcileQueue({
      log,
      // Spread over an hour: within the test, only the key with a change to deliver runs again.
      refreshMs: 3_600_000,
      waitBeforeRetry: () => hubBack.opened,
      isUrgent: (key) => key.name === 'm-2',
      reconcile: (key) => {
        passes.push(key.name);
        return passes.length <= 5 ? Promise.reject(new Error('hub down')) : Promise.resolve(undefined);
      },
    });
    for (const key of keys(5)) queue.enqueue(key);
    await vi.waitFor(() => expect(passes).toHaveLength(5));
    hubBack.open();
    await vi.waitFor(() => expect(passes).toHaveLength(6));
    expect(passes[5]).toBe('m-2');
    expect(keys(5).every((key) => queue.has(key) === (key.name !== 'm-2'))).toBe(true);
    await queue.stop();
  });
});
