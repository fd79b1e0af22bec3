// The Kubernetes side of reconcile, through the custom-objects API: exactly the verbs the operator's ClusterRole
// grants (get monitors, patch monitors for finalizers, patch monitors/status).
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { kubeStatusOf } from '../../hub/src/kube/kube-status.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from './monitor-resource-status.js';
import type { MonitorResources } from './reconcile-monitor.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export function kubeMonitorResources(kubeConfig: KubeConfig): MonitorResources {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const target = (resource: { metadata: { namespace: string; name: string } }) => ({
    group: MONITOR_GROUP,
    version: MONITOR_VERSION,
    plural: MONITOR_PLURAL,
    namespace: resource.metadata.namespace,
    name: resource.metadata.name,
  });
  return {
    async get(key) {
      try {
        return (await api.getNamespacedCustomObject(target({ metadata: key }))) as MonitorResource;
      } catch (error) {
        if (kubeStatusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async setFinalizers(resource, finalizers) {
      // The resourceVersion makes this a compare-and-swap: a concurrent change fails it with 409 and a retry.
      const body = { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } };
      return (await api.patchNamespacedCustomObject(
        { ...target(resource), body },
        mergePatch,
      )) as MonitorResource;
    },
    async writeStatus(resource, status) {
      // A JSON patch replacing the whole status: a merge patch could not remove a figure that no longer applies.
      const body = [{ op: 'add', path: '/status', value: status }];
      await api.patchNamespacedCustomObjectStatus({ ...target(resource), body }, jsonPatch);
    },
  };
}
