// The Kubernetes side of reconcile: reads from the informer's cache (resource-informer.ts), writes through the
// custom-objects API with exactly the verbs the operator's ClusterRole grants (get monitors, patch monitors for
// finalizers, patch monitors/status; the same for maintenancewindows).
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { kubeStatusOf } from '../../hub/src/kube/kube-status.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import type { MonitorKey, MonitorResources } from './reconcile-monitor.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/** Reads and writes of one kind of meerkat.dev resource (MonitorResources says what each does). */
export interface CustomResources<R, S> {
  get(key: MonitorKey): R | undefined;
  getLatest(key: MonitorKey): Promise<R | undefined>;
  setFinalizers(resource: R, finalizers: string[]): Promise<R>;
  writeStatus(resource: R, status: S): Promise<void>;
}

/** The informer's cache of one kind (its lister). */
export interface ResourceLister<R> {
  get(key: MonitorKey): R | undefined;
}

type Addressed = { metadata: { namespace: string; name: string; resourceVersion?: string } };

export function kubeMonitorResources(
  kubeConfig: KubeConfig,
  lister: ResourceLister<MonitorResource>,
): MonitorResources {
  return kubeCustomResources<MonitorResource, MonitorResourceStatus>(kubeConfig, MONITOR_PLURAL, lister);
}

/** The uids of the Monitors the API server holds (in one namespace, or all): a list read from etcd, not a cache. */
export async function listMonitorUids(
  kubeConfig: KubeConfig,
  namespace: string | undefined,
): Promise<ReadonlySet<string>> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: MONITOR_PLURAL };
  const uids = new Set<string>();
  let _continue: string | undefined;
  do {
    const paged = { ...target, limit: 500, ...(_continue === undefined ? {} : { _continue }) };
    const page = (await (namespace === undefined
      ? api.listClusterCustomObject(paged)
      : api.listNamespacedCustomObject({ ...paged, namespace }))) as {
      items: Array<{ metadata: { uid: string } }>;
      metadata?: { continue?: string };
    };
    for (const item of page.items) uids.add(item.metadata.uid);
    _continue = page.metadata?.continue || undefined;
  } while (_continue !== undefined);
  return uids;
}

export function kubeCustomResources<R extends Addressed, S>(
  kubeConfig: KubeConfig,
  plural: string,
  lister: ResourceLister<R>,
): CustomResources<R, S> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const target = (resource: { metadata: { namespace: string; name: string } }) => ({
    group: MONITOR_GROUP,
    version: MONITOR_VERSION,
    plural,
    namespace: resource.metadata.namespace,
    name: resource.metadata.name,
  });
  return {
    get: (key) => lister.get(key),
    async getLatest(key) {
      try {
        return (await api.getNamespacedCustomObject(target({ metadata: key }))) as R;
      } catch (error) {
        if (kubeStatusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async setFinalizers(resource, finalizers) {
      // The resourceVersion makes this a compare-and-swap: a concurrent change fails it with 409 and a retry.
      const body = { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } };
      return (await api.patchNamespacedCustomObject({ ...target(resource), body }, mergePatch)) as R;
    },
    async writeStatus(resource, status) {
      // A JSON patch replacing the whole status: a merge patch could not remove a figure that no longer applies.
      const body = [{ op: 'add', path: '/status', value: status }];
      await api.patchNamespacedCustomObjectStatus({ ...target(resource), body }, jsonPatch);
    },
  };
}
