// Which hub monitors this operator answers for, and collecting those whose Monitor is gone (ADR 0065). Every monitor
// the operator puts carries two labels: `meerkat.dev/cluster` (OPERATOR_CLUSTER_NAME) and `meerkat.dev/namespace`
// (the Monitor's namespace). A Monitor has no finalizer: when one goes, its hub monitor is deleted at its DELETED
// event, and the planned resync's listing of the hub collects any left over (a deletion while the operator was down,
// a delete that failed). Only a monitor labelled with this operator's cluster, from a namespace it watches, whose id
// is no Monitor's uid in the informer's cache once that cache has been listed, and that a fresh list of the API
// server does not hold either, is collected: the cache may lag (a relist from a stale list, a watch behind), the
// fresh list is read after the hub's listing, and a hub monitor in that listing had its Monitor before it, so a uid
// the fresh list lacks is a Monitor deleted for good (a uid never comes back).
import type { Logger } from 'pino';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';

const CLUSTER_LABEL = 'meerkat.dev/cluster';
const NAMESPACE_LABEL = 'meerkat.dev/namespace';

/** The labels that mark a hub monitor as this operator's, merged over the Monitor's own. */
export function managedLabels(clusterName: string, namespace: string): Record<string, string> {
  return { [CLUSTER_LABEL]: clusterName, [NAMESPACE_LABEL]: namespace };
}

export interface OrphanSweepOptions {
  clusterName: string;
  /** Only this namespace's monitors; every namespace's when undefined. */
  watchNamespace: string | undefined;
  /** True once the informer's cache holds a complete listing (a cache that resumed a watch without one does not). */
  cacheListed: () => boolean;
  /** Whether a Monitor with this uid is in the informer's cache. */
  isCached: (uid: string) => boolean;
  /**
   * The uids of the Monitors the API server holds now in the watched namespaces (a list read from etcd, not the
   * cache); read only when a sweep has candidates.
   */
  liveUids: () => Promise<ReadonlySet<string>>;
  deleteMonitor: (id: string) => Promise<void>;
  log: Logger;
}

/** The ids of listed monitors that are this operator's and whose Monitor the cache no longer holds. */
export function orphansOf(listed: Iterable<Monitor>, options: OrphanSweepOptions): string[] {
  if (!options.cacheListed()) return [];
  const orphans: string[] = [];
  for (const monitor of listed) {
    const labels = monitor.labels ?? {};
    if (labels[CLUSTER_LABEL] !== options.clusterName) continue;
    const namespace = labels[NAMESPACE_LABEL];
    if (namespace === undefined) continue;
    if (options.watchNamespace !== undefined && namespace !== options.watchNamespace) continue;
    if (!options.isCached(monitor.id)) orphans.push(monitor.id);
  }
  return orphans;
}

/**
 * Deletes each orphan the API server confirms gone, in turn (a 404 is a deletion done); a failure (of the fresh list
 * or of a deletion) is logged and left to the next sweep.
 */
export async function collectOrphans(
  listed: Iterable<Monitor>,
  options: OrphanSweepOptions,
): Promise<number> {
  const candidates = orphansOf(listed, options);
  if (candidates.length === 0) return 0;
  let live: ReadonlySet<string>;
  try {
    live = await options.liveUids();
  } catch (error) {
    options.log.warn({ err: error }, 'could not list the Monitors to confirm a sweep: it waits for the next');
    return 0;
  }
  let deleted = 0;
  for (const id of candidates) {
    if (live.has(id) || options.isCached(id)) continue;
    try {
      await options.deleteMonitor(id);
      deleted += 1;
      options.log.info({ monitorId: id }, 'hub monitor deleted: its Monitor is gone');
    } catch (error) {
      options.log.warn({ err: error, monitorId: id }, 'could not delete a hub monitor whose Monitor is gone');
    }
  }
  return deleted;
}

/**
 * The controller's sweep: after each complete listing of the hub, and once when the informer's cache first holds a
 * complete listing (which sweeps the hub's last one), one sweep at a time.
 */
export function createOrphanSweep(options: OrphanSweepOptions) {
  let lastListing: readonly Monitor[] = [];
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    const listing = lastListing;
    sweeping = sweeping.then(() => collectOrphans(listing, options));
    return sweeping;
  };
  return {
    /** A complete listing of the hub's monitors. */
    hubListed(monitors: readonly Monitor[]) {
      lastListing = monitors;
      return sweep();
    },
    /** The informer's cache holds its first complete listing. */
    cacheListed: sweep,
    /** Waits for the sweeps under way. */
    settled: () => sweeping,
  };
}
