// The pass after a sync asks the hub nothing (ADR 0070), on a real kube-apiserver with a real hub: the operator's
// own status write comes back as a MODIFIED event and, when it arrives after the pass that wrote it, the key is
// reconciled again; that pass compares the spec with the hub's answer to the operator's PUT, not with a
// `GET /monitor/{id}` per Monitor. A change of the Monitor that is no change of its spec (an annotation of the user's)
// takes the same path with certainty, so the test makes one per Monitor and counts the passes and the hub requests.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
} from '../../operator/src/monitor-resource-status.js';
import { adminKubeConfig, eventually, mergePatch } from '../kube/test-cluster.js';
import { monitorsIn, sampleNamed, setUpOperatorTests, untilSynced } from './operator-fixture.js';

const setup = setUpOperatorTests('operator-echo');
const FLEET = 3;

/** The operator's hub client, recording each request that names one monitor (a GET, a PUT, a metrics or run read). */
function countingHub() {
  const client = createHubClient(setup.hub.url, setup.hub.keys.acmeEditor);
  const requests: string[] = [];
  return {
    requests,
    client: {
      ...client,
      getMonitor: (id: string) => {
        requests.push(`GET /monitor/${id}`);
        return client.getMonitor(id);
      },
      putMonitor: (id: string, definition: Parameters<typeof client.putMonitor>[1]) => {
        requests.push(`PUT /monitor/${id}`);
        return client.putMonitor(id, definition);
      },
      putMonitors: (items: Parameters<typeof client.putMonitors>[0]) => {
        requests.push(...items.map((item) => `PUT /monitor/${item.id} (bulk)`));
        return client.putMonitors(items);
      },
      getMonitorMetrics: (id: string) => {
        requests.push(`GET /metrics/monitors/${id}`);
        return client.getMonitorMetrics(id);
      },
      getRun: (id: string) => {
        requests.push(`GET /runs/${id}`);
        return client.getRun(id);
      },
    },
  };
}

const counter = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)?.get())?.values.reduce((sum, each) => sum + each.value, 0) ?? 0;

/** The monitor ids of the requests, each once, sorted. */
const idsOf = (requests: string[]) =>
  [...new Set(requests.map((line) => line.split('/')[2]!.split(' ')[0]))].sort();

describe('the pass after a sync', () => {
  it('compares with the hub’s answer to the PUT: no request to the hub', { timeout: 180_000 }, async () => {
    const namespace = setup.namespace.name;
    const hub = countingHub();
    const registry = new Registry();
    // No resync and no health sweep within the test: no listing of the hub's copies after the first (empty) one.
    setup.startTestOperator({ hub: hub.client, registry, resyncMs: 600_000, refreshMs: 600_000 });
    const monitors = monitorsIn(namespace);
    const names = Array.from({ length: FLEET }, (_, index) => `echo-${index}`);
    for (const name of names) await monitors.create(sampleNamed(namespace, name));
    const ids: string[] = [];
    for (const name of names) ids.push((await untilSynced(namespace, name)).metadata.uid);
    // Each Monitor was put once; the echoes of the status writes that came after their passes asked nothing more.
    expect(hub.requests).toHaveLength(FLEET);
    expect(hub.requests.every((line) => line.startsWith('PUT /monitor/'))).toBe(true);
    expect(idsOf(hub.requests)).toEqual([...ids].sort());

    const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
    const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: MONITOR_PLURAL, namespace };
    const before = await counter(registry, 'meerkat_operator_reconcile_total');
    for (const name of names)
      await api.patchNamespacedCustomObject(
        { ...target, name, body: { metadata: { annotations: { 'example.com/owner': 'team-a' } } } },
        mergePatch,
      );
    await eventually(
      `${FLEET} more passes`,
      async () => (await counter(registry, 'meerkat_operator_reconcile_total')) >= before + FLEET,
      60_000,
    );
    expect(hub.requests).toHaveLength(FLEET);
    expect(await counter(registry, 'meerkat_operator_reconcile_errors_total')).toBe(0);
  });
});
