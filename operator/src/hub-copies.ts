// The hub's copies of the operator's monitors, listed in pages of 100 when the controller starts and at each
// planned resync (ADR 0049), so that a pass over a synced Monitor compares its spec with the listed copy instead of
// a `GET /monitor/{id}` per Monitor: at 10,000 Monitors a resync costs 100 requests, not 10,000.
//
// A listing says what the hub held when it was read. What this operator put since is newer: the hub's answer to the
// PUT (the monitor as stored, ADR 0070) is the copy until a listing that began after that answer replaces it, so the
// pass that the operator's own status write brings back compares with it and asks the hub nothing. A PUT under way,
// or one that failed (the hub may or may not have stored it), leaves its id unknown until such a listing: the pass
// then GETs it, as it always did. A listing that fails leaves the listed copies unknown: every other pass GETs.
import type { Logger } from 'pino';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';

/** The copy; `null` when the listing had no such monitor; `undefined` when unknown (ask the hub). */
export type ListedCopy = Monitor | null | undefined;

export interface HubCopies {
  /** Waits for a listing under way, so a resync's passes use it instead of asking one by one. */
  copyOf(id: string): Promise<ListedCopy>;
  /**
   * Puts the monitor through `put` and keeps the hub's answer as its copy; while the PUT is under way, and after it
   * failed, the id is unknown.
   */
  put(id: string, put: () => Promise<Monitor>): Promise<Monitor>;
  /** Lists again; a listing already under way is reused. */
  refresh(): void;
  stop(): Promise<void>;
}

/** A monitor this operator put: the hub's answer (undefined while unknown), and how many listings had begun then. */
interface Written {
  copy: Monitor | undefined;
  listingsBegun: number;
}

export function createHubCopies(options: {
  listMonitors: () => Promise<readonly Monitor[]>;
  log: Logger;
  /** Each complete listing, once read (the resync's sweep of monitors whose Monitor is gone, ADR 0065). */
  onListed?: (monitors: readonly Monitor[]) => void;
}): HubCopies {
  let listed: ReadonlyMap<string, Monitor> | undefined;
  /** What this operator put, newer than any listing that began before it was answered. */
  const written = new Map<string, Written>();
  let listingsBegun = 0;
  let inFlight: Promise<void> | undefined;
  let stopped = false;

  async function list(): Promise<void> {
    listingsBegun += 1;
    const listing = listingsBegun;
    listed = undefined;
    try {
      const monitors = await options.listMonitors();
      if (stopped) return;
      listed = new Map(monitors.map((monitor) => [monitor.id, monitor]));
      // A write settled before this listing began is in it: the listing is as new, and now says it.
      for (const [id, entry] of written) if (entry.listingsBegun < listing) written.delete(id);
      options.onListed?.(monitors);
    } catch (error) {
      options.log.warn({ err: error }, 'could not list the hub’s monitors: each pass reads its own');
    }
  }

  const settle = (id: string, copy: Monitor | undefined) => written.set(id, { copy, listingsBegun });

  return {
    async copyOf(id) {
      await inFlight;
      const own = written.get(id);
      if (own !== undefined) return own.copy;
      if (listed === undefined) return undefined;
      return listed.get(id) ?? null;
    },
    async put(id, put) {
      settle(id, undefined);
      try {
        const stored = await put();
        settle(id, stored);
        return stored;
      } catch (error) {
        // Settled now, not when asked: a listing begun before this moment may hold the copy from before the PUT.
        settle(id, undefined);
        throw error;
      }
    },
    refresh() {
      if (stopped || inFlight !== undefined) return;
      inFlight = list().finally(() => {
        inFlight = undefined;
      });
    },
    async stop() {
      stopped = true;
      await inFlight;
    },
  };
}
