// The operator surviving what happens to it on a real kube-apiserver with a real hub: a watch answered 410 Gone,
// a deletion while it was down, a monitor changed behind its back in the hub; and what it tells people meanwhile
// (Events, health in status, /healthz, /readyz, Prometheus metrics).
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import { startMetricsServer } from '../../hub/src/http/metrics-server.js';
import { startHealthServer } from '../../operator/src/health-server.js';
import type { OperatorOptions } from '../../operator/src/start-operator.js';
import { eventually } from '../kube/test-cluster.js';
import {
  condition,
  eventsFor,
  hubMonitor,
  hubMonitorStatus,
  monitorsIn,
  sampleNamed,
  setUpOperatorTests,
  untilSynced,
} from './operator-fixture.js';

const setup = setUpOperatorTests('operator-recovery');

function operator(extra: Partial<OperatorOptions> = {}) {
  const registry = new Registry();
  return { running: setup.startTestOperator({ registry, ...extra }), registry };
}

const counter = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)?.get())?.values.reduce((sum, each) => sum + each.value, 0) ?? 0;

describe('operator recovery', () => {
  it('lists again after a 410 Gone and reconciles what was created meanwhile', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    await monitors.create(sampleNamed(setup.namespace.name, 'created-meanwhile'));
    // Resuming from resourceVersion 1, long compacted out of the watch cache, is answered 410 Gone.
    const { running, registry } = operator({ resumeWatchFrom: '1' });
    await untilSynced(setup.namespace.name, 'created-meanwhile');
    expect(await counter(registry, 'meerkat_operator_watch_restarts_total')).toBeGreaterThanOrEqual(1);
    // The watch that replaced it delivers new resources too.
    await monitors.create(sampleNamed(setup.namespace.name, 'created-after'));
    await untilSynced(setup.namespace.name, 'created-after');
    expect(await counter(registry, 'meerkat_operator_reconcile_total')).toBeGreaterThanOrEqual(2);
    await running.stop();
  });

  it('deletes the hub monitor of a Monitor deleted while it was stopped once it runs again', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    const first = operator();
    await monitors.create(sampleNamed(setup.namespace.name, 'deleted-while-down'));
    const { metadata } = await untilSynced(setup.namespace.name, 'deleted-while-down');
    await first.running.stop();

    // No finalizer (ADR 0065): the resource goes at once, and the hub monitor stays while no operator runs.
    await monitors.delete('deleted-while-down');
    await eventually('the resource being removed', () => monitors.gone('deleted-while-down'));
    expect(await hubMonitorStatus(setup.hub, metadata.uid)).toBe(200);

    // The restarted operator's first listings (the cache, the hub's monitors) find it orphaned.
    operator();
    await eventually(
      'the hub monitor deleted',
      async () => (await hubMonitorStatus(setup.hub, metadata.uid)) === 404,
    );
  });

  it('removes the finalizer of an operator before ADR 0065 once synced, and still deletes the hub monitor', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    operator();
    const sample = sampleNamed(setup.namespace.name, 'with-old-finalizer');
    await monitors.create({
      ...sample,
      metadata: { ...sample.metadata, finalizers: ['meerkat.dev/cleanup'] },
    });
    const { metadata } = await untilSynced(setup.namespace.name, 'with-old-finalizer');
    // The hub monitor now carries this operator's labels, so the finalizer goes: a deletion waits for no operator.
    await eventually(
      'the old finalizer removed',
      async () =>
        !(await monitors.get('with-old-finalizer')).metadata.finalizers?.includes('meerkat.dev/cleanup'),
    );
    expect((await hubMonitor(setup.hub, metadata.uid)).body.labels).toHaveProperty('meerkat.dev/cluster');
    // Without the finalizer the resource goes at once, and its DELETED event's pass deletes the hub monitor.
    await monitors.delete('with-old-finalizer');
    await eventually('the resource being removed', () => monitors.gone('with-old-finalizer'));
    await eventually(
      'the hub monitor deleted',
      async () => (await hubMonitorStatus(setup.hub, metadata.uid)) === 404,
    );
  });

  it('serves probes and metrics, records Events, refreshes health and repairs drift', async () => {
    // Drift is put back by the planned resync (every resource reconciled again, ADR 0049): a short one here.
    const { running, registry } = operator({ refreshMs: 300, resyncMs: 2_000 });
    const probes = await startHealthServer(running, 0, '127.0.0.1');
    const metrics = await startMetricsServer(registry, 0, '127.0.0.1');
    setup.stopAfterAll({ stop: () => probes.close() }, { stop: () => metrics.close() });
    const monitors = monitorsIn(setup.namespace.name);

    await eventually('/readyz answering 200', async () => (await fetch(`${probes.url}/readyz`)).ok);
    expect((await fetch(`${probes.url}/healthz`)).status).toBe(200);

    // A spec the hub refuses: Synced=False and a Warning Event with the hub's reason.
    const sample = sampleNamed(setup.namespace.name, 'refused');
    await monitors.create({ ...sample, spec: { ...sample.spec, frequency: { every: 0.1, unit: 'MINUTE' } } });
    await untilSynced(setup.namespace.name, 'refused', 'False');
    // An empty list is an answer too: wait until the Event is there, as it is written after the status.
    const [event] = await eventually('a HubRejectedSpec Event', async () => {
      const events = await eventsFor(setup.namespace.name, 'refused');
      const rejected = events.filter((each) => each.reason === 'HubRejectedSpec');
      return rejected.length > 0 ? rejected : undefined;
    });
    expect(event).toMatchObject({ type: 'Warning', source: { component: 'meerkat-operator' } });

    // Health from the hub's metrics API: a monitor that never ran is `unknown`, its Healthy condition too.
    await monitors.create(sampleNamed(setup.namespace.name, 'watched'));
    const watched = await eventually('health in the status', async () => {
      const resource = await monitors.get('watched');
      return resource.status?.health ? resource : undefined;
    });
    expect(watched.status?.health).toBe('unknown');
    expect(condition(watched, 'Healthy')).toMatchObject({ status: 'Unknown', reason: 'NoRecentRuns' });

    // Drift: a change made through the hub's API is put back by the next resync.
    const id = watched.metadata.uid;
    const frequencyInHub = async () =>
      JSON.stringify(
        (
          (await (await setup.hub.request('GET', `/monitor/${id}`)).json()) as {
            data: { frequency: unknown };
          }
        ).data.frequency,
      );
    const synced = await frequencyInHub();
    const definition = monitorResourceToDefinition(watched) as { frequency: unknown };
    const drifted = { ...definition, frequency: { every: 7, unit: 'HOUR' } };
    expect((await setup.hub.request('PUT', `/monitor/${id}`, { body: drifted })).status).toBe(200);
    expect(await frequencyInHub()).not.toBe(synced);
    await eventually('the hub monitor put back to the spec', async () => (await frequencyInHub()) === synced);

    const text = await (await fetch(metrics.url)).text();
    for (const name of ['reconcile_total', 'reconcile_errors_total', 'reconcile_duration_seconds_bucket'])
      expect(text).toContain(`meerkat_operator_${name}`);
    expect(text).toMatch(/^meerkat_operator_leader\S* 1$/m);
    expect(text).toMatch(/^meerkat_operator_queue_depth\S* \d+$/m);
    expect(text).toMatch(/^meerkat_operator_hub_reachable\S* 1$/m);
    expect(text).toMatch(/^meerkat_operator_monitors\{[^}]*condition="Synced",status="True"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^meerkat_operator_monitors\{[^}]*condition="Synced",status="False"[^}]*\} [1-9]/m);
    expect(await counter(registry, 'meerkat_operator_reconcile_total')).toBeGreaterThan(0);
  });

  it('counts a planned relist as a relist, not as a watch restart', async () => {
    const { registry } = operator({ resyncMs: 300 });
    await eventually(
      'two planned relists',
      async () => (await counter(registry, 'meerkat_operator_watch_relists_total')) >= 2,
    );
    expect(await counter(registry, 'meerkat_operator_watch_restarts_total')).toBe(0);
  });
});
