// Which hub monitors this operator answers for, and collecting those whose Monitor is gone (ADR 0065). Every monitor
// the operator puts carries two labels: `meerkat.dev/cluster` (OPERATOR_CLUSTER_NAME) and `meerkat.dev/namespace`
// (the Monitor's namespace). A Monitor has no finalizer: when one goes, its hub monitor is deleted at its DELETED
// event, and the planned resync's listing of the hub collects any left over (a deletion while the operator was down,
// a delete that failed). Only a monitor labelled with this operator's cluster, from a namespace it watches, whose id
// is no Monitor's uid in the informer's cache once that cache has been listed, is collected.
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

/** Deletes each orphan in turn (a 404 is a deletion done); a failure is logged and left to the next sweep. */
export async function collectOrphans(
  listed: Iterable<Monitor>,
  options: OrphanSweepOptions,
): Promise<number> {
  let deleted = 0;
  for (const id of orphansOf(listed, options)) {
    // The cache may have learnt of it since the listing was read (a Monitor whose uid is this id cannot appear
    // later, but the check is free).
    if (options.isCached(id)) continue;
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
