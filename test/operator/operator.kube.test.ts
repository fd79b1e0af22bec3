// The operator end to end on a real kube-apiserver and a real hub: it runs in-process as a ServiceAccount bound
// only to config/rbac/operator-clusterrole.yaml, and talks to the hub over HTTP with its own API key.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CustomObjectsApi, type V1ClusterRole } from '@kubernetes/client-node';
import { pino } from 'pino';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/cli/hub-client.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from '../../operator/src/monitor-resource-status.js';
import { startOperator } from '../../operator/src/start-operator.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  adminKubeConfig,
  createTestNamespace,
  eventually,
  kubeConfigForServiceAccount,
  mergePatch,
  type TestNamespace,
} from '../kube/test-cluster.js';
import { installMonitorCrd, readMonitorSamples, type MonitorSample } from './monitor-crd-install.js';

let hub: TestHub;
let namespace: TestNamespace;
let operator: { stop(): Promise<void> };

/** The ClusterRole as committed, under a name of this file's own (ClusterRoles are cluster-wide). */
function operatorClusterRole(): V1ClusterRole {
  const role = parse(
    readFileSync(new URL('../../config/rbac/operator-clusterrole.yaml', import.meta.url), 'utf8'),
  ) as V1ClusterRole;
  return { ...role, metadata: { name: `meerkat-operator-${randomBytes(3).toString('hex')}` } };
}

beforeAll(async () => {
  await installMonitorCrd();
  hub = await startTestHub();
  namespace = await createTestNamespace('operator');
  const kubeConfig = await kubeConfigForServiceAccount(namespace.name, 'meerkat-operator', [], {
    clusterRoles: [operatorClusterRole()],
  });
  operator = startOperator({
    kubeConfig,
    hub: createHubClient(hub.url, hub.keys.acmeEditor),
    log: pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' }),
    resyncMs: 60_000,
  });
});

afterAll(async () => {
  await operator?.stop();
  await namespace?.delete();
  await hub?.close();
});

const monitors = () => {
  const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const target = {
    group: MONITOR_GROUP,
    version: MONITOR_VERSION,
    plural: MONITOR_PLURAL,
    namespace: namespace.name,
  };
  return {
    create: async (body: MonitorSample) =>
      (await api.createNamespacedCustomObject({ ...target, body })) as MonitorResource,
    get: async (name: string) =>
      (await api.getNamespacedCustomObject({ ...target, name })) as MonitorResource,
    patchSpec: (name: string, spec: object) =>
      api.patchNamespacedCustomObject({ ...target, name, body: { spec } }, mergePatch),
    delete: (name: string) => api.deleteNamespacedCustomObject({ ...target, name }),
  };
};

/**
 * The samples' notifications name chat, email and webhook integrations this test hub does not have (the hub
 * refuses them, as the next test shows for a bad frequency); the sync itself is what is under test here.
 */
function withoutNotifications(sample: { file: string; resource: MonitorSample }) {
  const { notifications: _notifications, ...spec } = sample.resource.spec ?? {};
  return { ...sample, resource: { ...sample.resource, spec } };
}

/** A copy of the first sample as a new resource; its hub name comes from metadata.name, so it is unique. */
function sampleNamed(name: string): MonitorSample {
  const { resource } = withoutNotifications(readMonitorSamples(namespace.name)[0]!);
  const { name: _name, ...spec } = resource.spec ?? {};
  return { ...resource, metadata: { name }, spec };
}

const synced = (resource: MonitorResource) =>
  resource.status?.conditions?.find((condition) => condition.type === 'Synced');

async function hubMonitor(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await hub.request('GET', `/monitor/${id}`, { as: 'acmeViewer' });
  return {
    status: response.status,
    body: ((await response.json().catch(() => ({}))) as { data: Record<string, unknown> }).data,
  };
}

async function untilSynced(name: string, status: 'True' | 'False', generation = 1) {
  return eventually(`${name} Synced=${status} for generation ${generation}`, async () => {
    const resource = await monitors().get(name);
    const condition = synced(resource);
    return condition?.status === status && condition.observedGeneration === generation ? resource : undefined;
  });
}

describe('meerkat operator', () => {
  it.each(readMonitorSamples('placeholder').map(({ file }) => file))(
    'syncs the sample %s into the hub under the resource uid',
    async (file) => {
      const sample = withoutNotifications(
        readMonitorSamples(namespace.name).find((each) => each.file === file)!,
      );
      await monitors().create(sample.resource);
      const resource = await untilSynced(sample.resource.metadata.name, 'True');
      expect(resource.status?.monitorId).toBe(resource.metadata.uid);
      expect(resource.metadata.finalizers).toContain('meerkat.dev/cleanup');
      const inHub = await hubMonitor(resource.metadata.uid);
      expect(inHub.status).toBe(200);
      expect(inHub.body).toMatchObject({ id: resource.metadata.uid, nodes: sample.resource.spec?.nodes });
    },
  );

  it('shows the hub’s validation message in Synced=False when the hub refuses the spec', async () => {
    const sample = sampleNamed('too-frequent');
    await monitors().create({
      ...sample,
      spec: { ...sample.spec, frequency: { every: 0.1, unit: 'MINUTE' } },
    });
    const resource = await untilSynced('too-frequent', 'False');
    expect(synced(resource)).toMatchObject({ reason: 'HubRejectedSpec' });
    expect(synced(resource)?.message).toContain('the interval must be between 10 seconds and 30 days');
    expect((await hubMonitor(resource.metadata.uid)).status).toBe(404);
  });

  it('propagates a spec change, with observedGeneration following the generation', async () => {
    await monitors().create(sampleNamed('changing'));
    await untilSynced('changing', 'True', 1);
    await monitors().patchSpec('changing', { frequency: { every: 2, unit: 'HOUR' } });
    const resource = await untilSynced('changing', 'True', 2);
    expect(resource.status?.observedGeneration).toBe(2);
    expect((await hubMonitor(resource.metadata.uid)).body.frequency).toEqual({ every: 2, unit: 'HOUR' });
  });

  it('deletes the hub monitor before the resource goes', async () => {
    await monitors().create(sampleNamed('short-lived'));
    const { metadata } = await untilSynced('short-lived', 'True');
    await monitors().delete('short-lived');
    await eventually('the resource being removed', async () =>
      monitors()
        .get('short-lived')
        .then(
          () => false,
          (error: { code?: number }) => error.code === 404,
        ),
    );
    expect((await hubMonitor(metadata.uid)).status).toBe(404);
  });
});
