// What the leader's watch last saw of each Monitor: enough to tell a change reconcile must act on (a new
// generation, a deletion, a run-now or sync-now annotation) from an echo of the operator's own status and
// finalizer writes, to count Monitors per condition for the metrics, and to name the resource of a hub monitor id.
import { RUN_NOW_ANNOTATION, SYNC_NOW_ANNOTATION, type MonitorResource } from './monitor-resource-status.js';
import type { ResourceChange } from './resource-informer.js';
import type { MonitorKey } from './reconcile-monitor.js';

interface Seen {
  key: MonitorKey;
  uid: string;
  fingerprint: string;
  /** The hub has not accepted this generation yet. */
  pending: boolean;
  conditions: Array<{ type: string; status: string }>;
}

const fingerprintOf = (resource: MonitorResource) =>
  JSON.stringify([
    resource.metadata.uid,
    resource.metadata.generation ?? null,
    resource.metadata.deletionTimestamp ? String(resource.metadata.deletionTimestamp) : null,
    resource.metadata.annotations?.[RUN_NOW_ANNOTATION] ?? null,
    resource.metadata.annotations?.[SYNC_NOW_ANNOTATION] ?? null,
  ]);

export function createMonitorIndex() {
  const seen = new Map<string, Seen>();
  const byUid = new Map<string, MonitorKey>();
  return {
    /** Records the resource; true when the change is one reconcile must act on. */
    observe(change: ResourceChange, resource: MonitorResource): boolean {
      const { namespace, name, uid } = resource.metadata;
      const id = `${namespace}/${name}`;
      const previous = seen.get(id);
      if (previous) byUid.delete(previous.uid);
      if (change === 'DELETED') {
        seen.delete(id);
        return true;
      }
      const fingerprint = fingerprintOf(resource);
      const conditions = (resource.status?.conditions ?? []).map(({ type, status }) => ({ type, status }));
      const { annotations } = resource.metadata;
      const pending =
        resource.metadata.generation !== resource.status?.observedGeneration ||
        resource.metadata.deletionTimestamp !== undefined ||
        (annotations?.[RUN_NOW_ANNOTATION] ?? resource.status?.runNow?.token) !==
          resource.status?.runNow?.token ||
        (annotations?.[SYNC_NOW_ANNOTATION] ?? resource.status?.syncNowToken) !==
          resource.status?.syncNowToken;
      seen.set(id, { key: { namespace, name }, uid, fingerprint, pending, conditions });
      byUid.set(uid, { namespace, name });
      return previous?.fingerprint !== fingerprint;
    },
    keyOfUid: (uid: string) => byUid.get(uid),
    /** Whether the resource has something to deliver to the hub: a new spec, a deletion, run-now or sync-now. */
    isPending: (key: MonitorKey) => seen.get(`${key.namespace}/${key.name}`)?.pending ?? true,
    conditionCounts() {
      const counts = new Map<string, { condition: string; status: string; count: number }>();
      for (const { conditions } of seen.values()) {
        for (const { type, status } of conditions) {
          const entry = counts.get(`${type}/${status}`) ?? { condition: type, status, count: 0 };
          entry.count += 1;
          counts.set(`${type}/${status}`, entry);
        }
      }
      return [...counts.values()];
    },
    clear(): void {
      seen.clear();
      byUid.clear();
    },
  };
}
