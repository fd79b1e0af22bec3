/**
 * Figures that are costly to compute and may be a little old, kept per key. A snapshot younger than its key's
 * `maxAgeMs` is served as is. An older one is still served while a single background refresh replaces it,
 * unless it is more than twice `maxAgeMs` old: then the request waits for the refresh. A key with no snapshot
 * waits too, and concurrent requests for it share one computation. So nothing served is older than twice
 * `maxAgeMs` plus one computation, and at most one computation per key runs at a time. The least recently used
 * keys are dropped beyond `maxEntries`. Ages are measured on the clock the figures are computed for.
 */
export interface SnapshotCacheOptions<K, V> {
  compute(key: K): Promise<V>;
  /** 0 turns the cache off for the key: every request computes. */
  maxAgeMs(key: K): number;
  keyOf(key: K): string;
  now(): number;
  maxEntries: number;
  /** A failed background refresh; the old snapshot stays until the next request retries. */
  onRefreshError(error: unknown): void;
}

interface Entry<V> {
  snapshot?: { value: V; at: number };
  computing?: Promise<V> | undefined;
}

export function createSnapshotCache<K, V>(options: SnapshotCacheOptions<K, V>) {
  // A Map iterates in insertion order; re-inserting on use keeps the least recently used first.
  const entries = new Map<string, Entry<V>>();

  const refresh = (id: string, entry: Entry<V>, key: K): Promise<V> => {
    if (entry.computing) return entry.computing;
    const startedAt = options.now();
    const computing = options.compute(key).then(
      (value) => {
        entry.snapshot = { value, at: startedAt };
        return value;
      },
      (error: unknown) => {
        // A failed first computation leaves nothing behind, so the next request tries again.
        if (entry.snapshot === undefined && entries.get(id) === entry) entries.delete(id);
        throw error;
      },
    );
    entry.computing = computing.finally(() => {
      entry.computing = undefined;
    });
    return entry.computing;
  };

  return {
    async get(key: K): Promise<V> {
      const maxAge = options.maxAgeMs(key);
      if (maxAge <= 0) return options.compute(key);
      const id = options.keyOf(key);
      const entry = entries.get(id) ?? {};
      entries.delete(id);
      entries.set(id, entry);
      for (const [oldest] of entries) {
        if (entries.size <= options.maxEntries) break;
        entries.delete(oldest);
      }
      const { snapshot } = entry;
      if (snapshot === undefined) return refresh(id, entry, key);
      const age = options.now() - snapshot.at;
      if (age < maxAge) return snapshot.value;
      if (age >= 2 * maxAge) return refresh(id, entry, key);
      refresh(id, entry, key).catch((error: unknown) => options.onRefreshError(error));
      return snapshot.value;
    },
    get size() {
      return entries.size;
    },
  };
}
