// The operator end to end on a real kube-apiserver and a real hub: it runs in-process as a ServiceAccount bound
// only to config/rbac/operator-clusterrole.yaml, and talks to the hub over HTTP with its own API key.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../kube/test-cluster.js';
import { readMonitorSamples } from './monitor-crd-install.js';
import { clusterIdentity } from '../../operator/src/cluster-identity.js';
import {
  condition,
  hubMonitor,
  monitorsIn,
  sampleNamed,
  setUpOperatorTests,
  untilSynced,
  withoutNotifications,
} from './operator-fixture.js';

const setup = setUpOperatorTests('operator');

beforeAll(() => {
  setup.startTestOperator();
});

const monitors = () => monitorsIn(setup.namespace.name);

describe('meerkat operator', () => {
  it.each(readMonitorSamples('placeholder').map(({ file }) => file))(
    'syncs the sample %s into the hub under the resource uid',
    async (file) => {
      const sample = withoutNotifications(
        readMonitorSamples(setup.namespace.name).find((each) => each.file === file)!,
      );
      await monitors().create(sample.resource);
      const resource = await untilSynced(setup.namespace.name, sample.resource.metadata.name, 'True', 1);
      expect(resource.status?.monitorId).toBe(resource.metadata.uid);
      // No finalizer (ADR 0065): the hub monitor is labelled as this operator's instead.
      expect(resource.metadata.finalizers ?? []).not.toContain('meerkat.dev/cleanup');
      const inHub = await hubMonitor(setup.hub, resource.metadata.uid);
      expect(inHub.status).toBe(200);
      expect(inHub.body).toMatchObject({ id: resource.metadata.uid, nodes: sample.resource.spec?.nodes });
      expect(clusterIdentity(setup.kubeConfig).name).toMatch(/^ca-[0-9a-f]{16}$/);
      expect(inHub.body.labels).toMatchObject({
        // OPERATOR_CLUSTER_NAME unset: the hash of the test cluster's CA.
        'meerkat.dev/cluster': clusterIdentity(setup.kubeConfig).name,
        'meerkat.dev/namespace': setup.namespace.name,
      });
    },
  );

  it('shows the hub’s validation message in Synced=False when the hub refuses the spec', async () => {
    const sample = sampleNamed(setup.namespace.name, 'too-frequent');
    await monitors().create({
      ...sample,
      spec: { ...sample.spec, frequency: { every: 0.1, unit: 'MINUTE' } },
    });
    const resource = await untilSynced(setup.namespace.name, 'too-frequent', 'False', 1);
    expect(condition(resource, 'Synced')).toMatchObject({ reason: 'HubRejectedSpec' });
    expect(condition(resource, 'Synced')?.message).toContain(
      'the interval must be between 10 seconds and 30 days',
    );
    expect((await hubMonitor(setup.hub, resource.metadata.uid)).status).toBe(404);
  });

  it('propagates a spec change, with observedGeneration following the generation', async () => {
    await monitors().create(sampleNamed(setup.namespace.name, 'changing'));
    await untilSynced(setup.namespace.name, 'changing', 'True', 1);
    await monitors().patchSpec('changing', { frequency: { every: 2, unit: 'HOUR' } });
    const resource = await untilSynced(setup.namespace.name, 'changing', 'True', 2);
    expect(resource.status?.observedGeneration).toBe(2);
    expect((await hubMonitor(setup.hub, resource.metadata.uid)).body.frequency).toEqual({
      every: 2,
      unit: 'HOUR',
    });
  });

  it('deletes the hub monitor once the resource goes', async () => {
    await monitors().create(sampleNamed(setup.namespace.name, 'short-lived'));
    const { metadata } = await untilSynced(setup.namespace.name, 'short-lived', 'True', 1);
    await monitors().delete('short-lived');
    await eventually('the resource being removed', () => monitors().gone('short-lived'));
    await eventually(
      'the hub monitor deleted',
      async () => (await hubMonitor(setup.hub, metadata.uid)).status === 404,
    );
  });
});
