// The Kubernetes side of reconcile, through the custom-objects API: exactly the verbs the operator's ClusterRole
// grants (get monitors, patch monitors for finalizers, patch monitors/status; the same for maintenancewindows).
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

/** get, setFinalizers and writeStatus of one kind of meerkat.dev resource. */
export interface CustomResources<R, S> {
  get(key: MonitorKey): Promise<R | undefined>;
  setFinalizers(resource: R, finalizers: string[]): Promise<R>;
  /** Replaces the whole status, so fields absent from `status` are removed. */
  writeStatus(resource: R, status: S): Promise<void>;
}

type Addressed = { metadata: { namespace: string; name: string; resourceVersion?: string } };

export function kubeMonitorResources(kubeConfig: KubeConfig): MonitorResources {
  return kubeCustomResources<MonitorResource, MonitorResourceStatus>(kubeConfig, MONITOR_PLURAL);
}

export function kubeCustomResources<R extends Addressed, S>(
  kubeConfig: KubeConfig,
  plural: string,
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
    async get(key) {
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
