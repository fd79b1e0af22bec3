// The hub's copies of the operator's monitors, listed in pages of 100 when the controller starts and at each
// planned resync (ADR 0049), so that a pass over a synced Monitor compares its spec with the listed copy instead of
// a `GET /monitor/{id}` per Monitor: at 10,000 Monitors a resync costs 100 requests, not 10,000.
//
// A listing says what the hub held when it was read. A monitor this operator wrote after the listing started may be
// listed as it was before the write, so such an id is unknown until the next listing (the pass then GETs it, as it
// always did). A listing that fails leaves nothing known: every pass GETs, as before this file.
import type { Logger } from 'pino';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';

/** The listed copy; `null` when the listing had no such monitor; `undefined` when unknown (ask the hub). */
export type ListedCopy = Monitor | null | undefined;

export interface HubCopies {
  /** Waits for a listing under way, so a resync's passes use it instead of asking one by one. */
  copyOf(id: string): Promise<ListedCopy>;
  /** This operator wrote or deleted the monitor: what the listing says of it is no longer what the hub holds. */
  forget(id: string): void;
  /** Lists again; a listing already under way is reused. */
  refresh(): void;
  stop(): Promise<void>;
}

export function createHubCopies(options: {
  listMonitors: () => Promise<readonly Monitor[]>;
  log: Logger;
  /** Each complete listing, once read (the resync's sweep of monitors whose Monitor is gone, ADR 0065). */
  onListed?: (monitors: readonly Monitor[]) => void;
}): HubCopies {
  let listed: ReadonlyMap<string, Monitor> | undefined;
  /** Ids written since the current listing started. */
  let written = new Set<string>();
  let inFlight: Promise<void> | undefined;
  let stopped = false;

  async function list(): Promise<void> {
    written = new Set();
    listed = undefined;
    try {
      const monitors = await options.listMonitors();
      if (stopped) return;
      listed = new Map(monitors.map((monitor) => [monitor.id, monitor]));
      options.onListed?.(monitors);
    } catch (error) {
      options.log.warn({ err: error }, 'could not list the hub’s monitors: each pass reads its own');
    }
  }

  return {
    async copyOf(id) {
      await inFlight;
      if (listed === undefined || written.has(id)) return undefined;
      return listed.get(id) ?? null;
    },
    forget(id) {
      written.add(id);
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
