import { describe, expect, it } from 'vitest';
import { createSnapshotCache } from '../../hub/src/system/snapshot-cache.js';

/** A cache over a computation the test finishes by hand, on a clock the test moves. */
function harness(maxAgeMs = 1000, maxEntries = 10) {
  let now = 0;
  const pending: Array<{ key: string; resolve(value: string): void; reject(error: Error): void }> = [];
  const errors: unknown[] = [];
  const cache = createSnapshotCache<string, string>({
    compute: (key) => new Promise((resolve, reject) => pending.push({ key, resolve, reject })),
    maxAgeMs: () => maxAgeMs,
    keyOf: (key) => key,
    now: () => now,
    maxEntries,
    onRefreshError: (error) => errors.push(error),
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    cache,
    pending,
    errors,
    settle,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('the snapshot cache of the fleet figures', () => {
  it('shares one computation among concurrent first requests', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    const second = h.cache.get('acme');
    expect(h.pending).toHaveLength(1);
    h.pending[0]!.resolve('v1');
    expect(await first).toBe('v1');
    expect(await second).toBe('v1');
  });

  it('serves a fresh snapshot without computing', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.pending[0]!.resolve('v1');
    await first;
    h.advance(999);
    expect(await h.cache.get('acme')).toBe('v1');
    expect(h.pending).toHaveLength(1);
  });

  it('serves a stale snapshot while one background refresh replaces it', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.pending[0]!.resolve('v1');
    await first;
    h.advance(1500);
    expect(await h.cache.get('acme')).toBe('v1');
    expect(await h.cache.get('acme')).toBe('v1');
    expect(h.pending).toHaveLength(2);
    h.pending[1]!.resolve('v2');
    await h.settle();
    expect(await h.cache.get('acme')).toBe('v2');
    expect(h.pending).toHaveLength(2);
  });

  it('waits for the refresh when the snapshot is twice its allowed age', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.pending[0]!.resolve('v1');
    await first;
    h.advance(2000);
    const answer = h.cache.get('acme');
    expect(h.pending).toHaveLength(2);
    h.pending[1]!.resolve('v2');
    expect(await answer).toBe('v2');
  });

  it('ages a snapshot from when its computation started', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.advance(900);
    h.pending[0]!.resolve('v1');
    await first;
    h.advance(200);
    // 1,100 ms after the computation started: stale, so a refresh starts.
    expect(await h.cache.get('acme')).toBe('v1');
    expect(h.pending).toHaveLength(2);
  });

  it('keeps the old snapshot when a background refresh fails, and reports the failure', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.pending[0]!.resolve('v1');
    await first;
    h.advance(1500);
    expect(await h.cache.get('acme')).toBe('v1');
    h.pending[1]!.reject(new Error('database went away'));
    await h.settle();
    expect(h.errors).toEqual([new Error('database went away')]);
    expect(await h.cache.get('acme')).toBe('v1');
    expect(h.pending).toHaveLength(3);
  });

  it('lets a failed first computation fail its callers and retries on the next request', async () => {
    const h = harness();
    const first = h.cache.get('acme');
    h.pending[0]!.reject(new Error('no database'));
    await expect(first).rejects.toThrow('no database');
    const second = h.cache.get('acme');
    expect(h.pending).toHaveLength(2);
    h.pending[1]!.resolve('v1');
    expect(await second).toBe('v1');
  });

  it('computes every time when the allowed age is 0', async () => {
    const h = harness(0);
    const first = h.cache.get('acme');
    const second = h.cache.get('acme');
    expect(h.pending).toHaveLength(2);
    h.pending[0]!.resolve('a');
    h.pending[1]!.resolve('b');
    expect([await first, await second]).toEqual(['a', 'b']);
    expect(h.cache.size).toBe(0);
  });

  it('drops the least recently used keys beyond its size', async () => {
    const h = harness(1000, 2);
    for (const key of ['a', 'b']) {
      const answer = h.cache.get(key);
      h.pending.at(-1)!.resolve(key);
      await answer;
    }
    await h.cache.get('a');
    const c = h.cache.get('c');
    h.pending.at(-1)!.resolve('c');
    await c;
    expect(h.cache.size).toBe(2);
    // 'b' was least recently used, so it is computed again; 'a' is not.
    expect(await h.cache.get('a')).toBe('a');
    expect(h.pending).toHaveLength(3);
    const b = h.cache.get('b');
    expect(h.pending).toHaveLength(4);
    h.pending[3]!.resolve('b again');
    expect(await b).toBe('b again');
  });
});
