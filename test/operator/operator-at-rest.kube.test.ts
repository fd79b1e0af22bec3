// A fleet at rest writes nothing (issue 39, ADR 0063), on a real kube-apiserver with a real hub: Monitors whose runs
// keep passing while their latency moves by a factor of a thousand (the 95th percentile of a young Monitor's few
// runs is its slowest, and on a busy node that moves by any factor) keep the status written with their first
// verdict: no status write, no per-Monitor metrics read, while the operator's health sweeps go on.
import { describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { eventually } from '../kube/test-cluster.js';
import { monitorsIn, sampleNamed, setUpOperatorTests, untilSynced } from './operator-fixture.js';
import { useReportingHub } from './reporting-hub.js';

// The hub computes its fleet figures on every request, so a sweep sees each run at once.
const setup = setUpOperatorTests('operator-at-rest', { metricsFleetMaxAgePercent: 0 });
const asRunner = useReportingHub(setup);
const FLEET = 5;
/** Each Monitor's runs, in milliseconds: the slowest of them, its p95, grows from 9 ms to 9 s. */
const DURATIONS = [9, 90, 900, 9_000];

/** The hub client the operator uses, counting its health sweeps and its per-Monitor metrics reads. */
function countingHub() {
  const client = createHubClient(setup.hub.url, setup.hub.keys.acmeEditor);
  const counts = { sweeps: 0, metricsReads: 0 };
  return {
    counts,
    client: {
      ...client,
      listMonitorHealth: () => {
        counts.sweeps += 1;
        return client.listMonitorHealth();
      },
      getMonitorMetrics: (id: string) => {
        counts.metricsReads += 1;
        return client.getMonitorMetrics(id);
      },
    },
  };
}

/** Starts a run of monitor `id` in the test hub and reports it passed in `durationMs`, as a runner Job does. */
async function passedRun(id: string, durationMs: number): Promise<void> {
  const triggered = await setup.hub.request('POST', `/runs/trigger/${id}`, {
    as: 'acmeEditor',
    body: { environment: 'default' },
  });
  expect(triggered.status).toBe(201);
  const runId = ((await triggered.json()) as { data: { id: string } }).data.id;
  expect((await asRunner('POST', `/runs/${runId}/start`)).status).toBe(200);
  const result = { success: true, errors: [], steps: [], durationMs };
  expect((await asRunner('PUT', `/runs/${runId}/result`, result)).status).toBe(200);
}

async function hubP95Ms(id: string): Promise<number> {
  const response = await setup.hub.request('GET', `/metrics/monitors/${id}`, { as: 'acmeViewer' });
  return ((await response.json()) as { data: { latency: { p95DurationMs: number } } }).data.latency
    .p95DurationMs;
}

describe('a fleet at rest', () => {
  it(
    'writes no status while its runs pass and their p95 grows a thousandfold',
    { timeout: 300_000 },
    async () => {
      const namespace = setup.namespace.name;
      const hub = countingHub();
      setup.startTestOperator({ hub: hub.client, refreshMs: 500, resyncMs: 600_000 });
      const monitors = monitorsIn(namespace);
      const names = Array.from({ length: FLEET }, (_, index) => `resting-${index}`);
      for (const name of names) await monitors.create(sampleNamed(namespace, name));
      const ids = [];
      for (const name of names) ids.push((await untilSynced(namespace, name)).metadata.uid);

      // The first verdict is news: each Monitor's status says healthy, written once.
      for (const id of ids) await passedRun(id, DURATIONS[0]!);
      const versions = new Map<string, string | undefined>();
      for (const name of names) {
        const healthy = await eventually(`${name} healthy in status`, async () => {
          const resource = await monitors.get(name);
          return resource.status?.health === 'healthy' && resource.status.lastRunResult === 'Passed'
            ? resource
            : undefined;
        });
        expect(Object.keys(healthy.status ?? {})).not.toContain('p95Ms');
        versions.set(name, healthy.metadata.resourceVersion);
      }

      // Then runs that keep passing, each ten times slower than the one before.
      for (const durationMs of DURATIONS.slice(1)) for (const id of ids) await passedRun(id, durationMs);
      // (The hub reads its p95 from 2%-wide histogram buckets: just under 9 s, past 1 s in any case.)
      for (const id of ids)
        await eventually('the hub’s p95 past 1 s', async () => {
          const p95 = await hubP95Ms(id);
          if (p95 < 1_000) throw new Error(`the hub’s p95 is ${p95} ms`);
          return true;
        });
      const { sweeps, metricsReads } = hub.counts;
      await eventually('three health sweeps', () => Promise.resolve(hub.counts.sweeps >= sweeps + 3), 60_000);

      const rewritten = [];
      for (const name of names)
        if ((await monitors.get(name)).metadata.resourceVersion !== versions.get(name)) rewritten.push(name);
      expect(rewritten).toEqual([]);
      expect(hub.counts.metricsReads - metricsReads).toBe(0);
    },
  );
});
