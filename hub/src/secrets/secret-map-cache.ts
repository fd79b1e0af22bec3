import type { Clock } from '../system/clock.js';
import type { SecretMap } from './secret-map.js';
import { secretScopeKey, type SecretScope } from './secret-store.js';

interface CachedMap {
  revision: number;
  map: SecretMap;
  storedAt: number;
}

/**
 * Latest maps read from Secret Manager, each tagged with the map's revision in PostgreSQL at the time of the
 * read. An entry serves only while the revision is unchanged, which any replica's write bumps, and for at most
 * `ttlMs`, which bounds staleness when a map is changed outside the hub (ADR 0005).
 */
export class SecretMapCache {
  private readonly entries = new Map<string, CachedMap>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
    private readonly maxEntries = 1000,
  ) {}

  get(scope: SecretScope, revision: number): SecretMap | undefined {
    const entry = this.entries.get(secretScopeKey(scope));
    if (entry === undefined || entry.revision !== revision) return undefined;
    if (this.clock.now().getTime() - entry.storedAt >= this.ttlMs) return undefined;
    return entry.map;
  }

  set(scope: SecretScope, revision: number, map: SecretMap): void {
    const key = secretScopeKey(scope);
    // Re-inserting moves the entry to the end, so the first key is always the least recently stored.
    this.entries.delete(key);
    this.entries.set(key, { revision, map, storedAt: this.clock.now().getTime() });
    const oldest = this.entries.keys().next();
    if (this.entries.size > this.maxEntries && oldest.done !== true) this.entries.delete(oldest.value);
  }

  forget(scope: SecretScope): void {
    this.entries.delete(secretScopeKey(scope));
  }
}
