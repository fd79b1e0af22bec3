// The queue honouring a reconcile's requeueAfterMs, on fake timers so "not yet" and "now" are exact.
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequeueingQueue, DONE, type ReconcileResult } from '../../operator/src/reconcile-result.js';

const log = pino({ level: 'silent' });
const key = { namespace: 'shop', name: 'checkout' };
/** Lets the passes under way finish (setImmediate is not faked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function queueAnswering(results: ReconcileResult[]) {
  let passes = 0;
  const queue = createRequeueingQueue({
    log,
    random: () => 0.5,
    reconcile: () => {
      passes += 1;
      return Promise.resolve(results[passes - 1] ?? DONE);
    },
  });
  return { queue, passes: () => passes };
}

describe('requeueAfterMs', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('runs the key again after the delay it asked for (plus a tenth here: a fifth at most, at random)', async () => {
    const { queue, passes } = queueAnswering([{ requeueAfterMs: 10_000 }]);
    queue.enqueue(key);
    await settle();
    expect(passes()).toBe(1);
    expect(queue.has(key)).toBe(true);
    await vi.advanceTimersByTimeAsync(10_999);
    expect(passes()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(passes()).toBe(2);
    // The second pass was DONE: the key is forgotten and never comes back on its own.
    expect(queue.has(key)).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes()).toBe(2);
    await queue.stop();
  });

  it('a change of the resource runs the key at once, and its own requeue replaces the one waiting', async () => {
    const { queue, passes } = queueAnswering([{ requeueAfterMs: 10_000 }, { requeueAfterMs: 30_000 }]);
    queue.enqueue(key);
    await settle();
    expect(passes()).toBe(1);
    queue.enqueue(key);
    await settle();
    expect(passes()).toBe(2);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(passes()).toBe(2);
    await vi.advanceTimersByTimeAsync(13_000);
    await settle();
    expect(passes()).toBe(3);
    await queue.stop();
  });

  it('stopping cancels the requeues waiting', async () => {
    const { queue, passes } = queueAnswering([{ requeueAfterMs: 1_000 }]);
    queue.enqueue(key);
    await settle();
    expect(passes()).toBe(1);
    await queue.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes()).toBe(1);
  });
});
