import { secretScopeKey, type SecretScope } from './secret-store.js';

/**
 * The loads of whole maps that are under way, by scope: a read arriving while its map is loading waits for that
 * load instead of starting an identical one. An entry lives only until its load settles, and a write forgets it,
 * so a read that starts after a write never receives the map from before it.
 */
export class SharedMapLoads<T> {
  private readonly loads = new Map<string, Promise<T>>();

  load(scope: SecretScope, start: () => Promise<T>): Promise<T> {
    const key = secretScopeKey(scope);
    const running = this.loads.get(key);
    if (running !== undefined) return running;
    const loading = start().finally(() => {
      if (this.loads.get(key) === loading) this.loads.delete(key);
    });
    this.loads.set(key, loading);
    return loading;
  }

  forget(scope: SecretScope): void {
    this.loads.delete(secretScopeKey(scope));
  }
}
