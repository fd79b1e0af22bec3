// What the operator's kube tests share: the committed ClusterRole under a per-file name, a ServiceAccount bound to
// it, typed access to Monitors as admin, samples renamed per test, a hub client that records its writes, and waits.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ClusterRole } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { createHubClient } from '../../hub/src/cli/hub-client.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from '../../operator/src/monitor-resource-status.js';
import type { TestHub } from '../harness/hub.js';
import { adminKubeConfig, eventually, kubeConfigForServiceAccount } from '../kube/test-cluster.js';
import { readMonitorSamples, type MonitorSample } from './monitor-crd-install.js';

/** A ServiceAccount in namespace bound only to config/rbac/operator-clusterrole.yaml (renamed for this file). */
export function operatorKubeConfig(namespace: string): Promise<KubeConfig> {
  const role = parse(
    readFileSync(new URL('../../config/rbac/operator-clusterrole.yaml', import.meta.url), 'utf8'),
  ) as V1ClusterRole;
  const clusterRole = { ...role, metadata: { name: `meerkat-operator-${randomBytes(3).toString('hex')}` } };
  return kubeConfigForServiceAccount(namespace, 'meerkat-operator', [], { clusterRoles: [clusterRole] });
}

export function monitorsIn(namespace: string) {
  const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: MONITOR_PLURAL, namespace };
  return {
    create: async (body: MonitorSample) =>
      (await api.createNamespacedCustomObject({ ...target, body })) as MonitorResource,
    get: async (name: string) =>
      (await api.getNamespacedCustomObject({ ...target, name })) as MonitorResource,
    delete: (name: string) => api.deleteNamespacedCustomObject({ ...target, name }),
    gone: (name: string) =>
      api.getNamespacedCustomObject({ ...target, name }).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      ),
  };
}

/** The first sample, without notifications (this hub has no integrations), as a new resource `name`. */
export function sampleNamed(namespace: string, name: string): MonitorSample {
  const { resource } = readMonitorSamples(namespace)[0]!;
  const { name: _name, notifications: _notifications, ...spec } = resource.spec ?? {};
  return { ...resource, metadata: { name }, spec };
}

export const condition = (resource: MonitorResource, type: 'Synced' | 'Healthy') =>
  resource.status?.conditions?.find((each) => each.type === type);

export function untilSynced(namespace: string, name: string, status: 'True' | 'False' = 'True') {
  return eventually(`${name} Synced=${status}`, async () => {
    const resource = await monitorsIn(namespace).get(name);
    return condition(resource, 'Synced')?.status === status ? resource : undefined;
  });
}

/** The real hub client for the operator's key, recording the ids it wrote, so a test sees which replica wrote. */
export function recordingHub(hub: TestHub) {
  const client = createHubClient(hub.url, hub.keys.acmeEditor);
  const writes: string[] = [];
  return {
    writes,
    client: {
      ...client,
      putMonitor: (id: string, definition: Parameters<typeof client.putMonitor>[1]) => {
        writes.push(id);
        return client.putMonitor(id, definition);
      },
      deleteMonitor: (id: string) => {
        writes.push(id);
        return client.deleteMonitor(id);
      },
    },
  };
}

export async function hubMonitorStatus(hub: TestHub, id: string): Promise<number> {
  return (await hub.request('GET', `/monitor/${id}`, { as: 'acmeViewer' })).status;
}

export async function eventsFor(namespace: string, name: string) {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({ namespace });
  return events.items.filter((event) => event.involvedObject.name === name);
}
