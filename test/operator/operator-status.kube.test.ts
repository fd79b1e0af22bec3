// What a Monitor's status tells an application team, on a real kube-apiserver with a real hub: the run started by
// `meerkat.dev/run-now`, the first error of a failing run and its URL, `kubectl get -o wide` with the reason, and
// `sync-now` putting back a copy changed in the hub.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import { RUN_NOW_ANNOTATION, SYNC_NOW_ANNOTATION } from '../../operator/src/monitor-resource-status.js';
import { eventually, kubeCluster } from '../kube/test-cluster.js';
import {
  condition,
  hubMonitor,
  monitorsIn,
  sampleNamed,
  setUpOperatorTests,
  untilSynced,
} from './operator-fixture.js';
import { useReportingHub } from './reporting-hub.js';

const setup = setUpOperatorTests('operator-status');

// A runner reports its result to a real `meerkat hub` process (which rolls results up into the metrics the
// operator reads), on the same database as the test hub the operator talks to.
const asRunner = useReportingHub(setup);

async function annotate(name: string, annotations: Record<string, string>) {
  await kubectl(
    'annotate',
    '--overwrite',
    'monitors.meerkat.dev',
    name,
    ...Object.entries(annotations).map(([k, v]) => `${k}=${v}`),
  );
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('kubectl', [
    '--kubeconfig',
    kubeCluster().kubeconfigPath,
    '-n',
    setup.namespace.name,
    ...args,
  ]);
  return stdout;
}

describe('Monitor status', () => {
  it('run-now starts a run and records its id; a failing run’s first error shows in status and -o wide', async () => {
    setup.startTestOperator({ refreshMs: 500, runUrl: (id) => `${setup.hub.url}/runs/${id}` });
    const monitors = monitorsIn(setup.namespace.name);
    await monitors.create(sampleNamed(setup.namespace.name, 'checkout'));
    await untilSynced(setup.namespace.name, 'checkout');

    await annotate('checkout', { [RUN_NOW_ANNOTATION]: 'first' });
    const started = await eventually('the run-now run in status', async () => {
      const resource = await monitors.get('checkout');
      return resource.status?.runNow?.token === 'first' ? resource : undefined;
    });
    const runId = started.status?.runNow?.runId ?? '';
    expect(runId).not.toBe('');
    const run = await setup.hub.request('GET', `/runs/${runId}`, { as: 'acmeViewer' });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ data: { id: runId, triggeredBy: 'manual' } });

    // A runner reports the run failed, as a runner Job does.
    const error = 'login: secret shop_client not found in production';
    expect((await asRunner('POST', `/runs/${runId}/start`)).status).toBe(200);
    const reported = await asRunner('PUT', `/runs/${runId}/result`, {
      success: false,
      errors: [error],
      steps: [],
      durationMs: 42,
    });
    expect(reported.status).toBe(200);

    const failing = await eventually('the failure in status', async () => {
      const resource = await monitors.get('checkout');
      return resource.status?.lastRunError ? resource : undefined;
    });
    expect(failing.status).toMatchObject({
      health: 'failing',
      lastRunId: runId,
      lastRunResult: 'Failed',
      lastRunError: error,
      lastRunUrl: `${setup.hub.url}/runs/${runId}`,
    });
    expect(condition(failing, 'Healthy')).toMatchObject({ status: 'False', reason: 'Failing' });
    expect(condition(failing, 'Healthy')?.message).toContain(error);
    const wide = await kubectl('get', 'monitors.meerkat.dev', 'checkout', '-o', 'wide');
    expect(wide).toMatch(/REASON\s+MESSAGE\s+LAST RESULT\s+RUN ERROR/);
    expect(wide).toContain(error);

    // The same token again starts nothing new.
    await annotate('checkout', { [RUN_NOW_ANNOTATION]: 'first', unrelated: 'x' });
    await annotate('checkout', { [RUN_NOW_ANNOTATION]: 'second' });
    const second = await eventually('the second run-now run', async () => {
      const resource = await monitors.get('checkout');
      return resource.status?.runNow?.token === 'second' ? resource : undefined;
    });
    expect(second.status?.runNow?.runId).not.toBe(runId);
  });

  it('sync-now puts the spec back over a copy changed in the hub', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    await monitors.create(sampleNamed(setup.namespace.name, 'drifting'));
    const resource = await untilSynced(setup.namespace.name, 'drifting');
    const id = resource.metadata.uid;
    const definition = monitorResourceToDefinition(resource) as { frequency: unknown };
    const drifted = { ...definition, frequency: { every: 7, unit: 'HOUR' } };
    expect((await setup.hub.request('PUT', `/monitor/${id}`, { body: drifted })).status).toBe(200);
    await annotate('drifting', { [SYNC_NOW_ANNOTATION]: 'now' });
    await eventually(
      'sync-now handled',
      async () => (await monitors.get('drifting')).status?.syncNowToken === 'now',
    );
    expect((await hubMonitor(setup.hub, id)).body.frequency).toEqual(definition.frequency);
  });
});
