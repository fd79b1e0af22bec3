// The path a platform team takes first, on a real node (docs/adr/0019-real-node-in-tests.md): the image built
// from the Dockerfile, the chart installed as `helm install` would, its Deployments Ready through their probes, a
// Monitor run as a runner Job pod by the kubelet, a worker pod replaced, and an uninstall that leaves nothing.
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
} from '../../operator/src/monitor-resource-status.js';
import { adminKubeConfig, eventually } from '../kube/test-cluster.js';
import { monitorAgainst } from '../runs/run-fixtures.js';
import { isGone } from './chart-install.js';
import * as fixtures from './node-fixtures.js';
import { installOnNode, RELEASE_NAMESPACE, type NodeRelease } from './node-release.js';

type Run = { id: string; status: string; success?: boolean; completedAt?: string };
type MonitorStatus = { conditions?: Array<{ type: string; status: string }>; monitorId?: string } & Record<
  string,
  unknown
>;

describe('the chart on a real node', () => {
  const node = inject('kubeNode');
  if (!node)
    throw new Error('no node in this run: test/node/global-setup.ts starts one for *.node.test.ts files');
  const kubeConfig = adminKubeConfig();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const objectsApi = KubernetesObjectApi.makeApiClient(kubeConfig);
  const monitors = kubeConfig.makeApiClient(CustomObjectsApi);
  let setup: NodeRelease;
  let monitorId = '';
  const monitorApi = () => ({
    group: MONITOR_GROUP,
    version: MONITOR_VERSION,
    plural: MONITOR_PLURAL,
    namespace: setup.monitorsNamespace,
  });

  beforeAll(async () => {
    setup = await installOnNode(node, kubeConfig);
  }, 600_000);
  afterAll(async () => {
    await setup?.close();
  });

  it('runs the migrate hook first and deletes it, then every Deployment becomes Ready through its probes', async () => {
    expect(setup.release.hooks.map((hook) => `${hook.kind}/${hook.metadata.name}`)).toEqual([
      'Secret/meerkat-migrate',
      'Job/meerkat-migrate',
    ]);
    for (const hook of setup.release.hooks)
      expect(
        await isGone(objectsApi, { ...hook, metadata: { ...hook.metadata, namespace: RELEASE_NAMESPACE } }),
      ).toBe(true);
    const deployments = setup.release.objects
      .filter((object) => object.kind === 'Deployment')
      .map((object) => object.metadata.name);
    expect(deployments.length).toBeGreaterThanOrEqual(4);
    for (const name of deployments) {
      await eventually(
        `Deployment ${name} Ready`,
        async () => {
          const status = (await apps.readNamespacedDeployment({ namespace: RELEASE_NAMESPACE, name })).status;
          return (status?.readyReplicas ?? 0) >= 1 && status;
        },
        300_000,
      );
    }
    const firstReady = await fixtures.firstReadyAt(kubeConfig, RELEASE_NAMESPACE);
    fixtures.report(
      'apply to first Ready pod',
      `${((firstReady! - setup.installStarted) / 1000).toFixed(0)} s (condition timestamps, 1 s resolution)`,
    );
    fixtures.report(
      'apply to every Deployment Ready',
      `${((Date.now() - setup.installStarted) / 1000).toFixed(0)} s`,
    );
    const { status } = await setup.hub('GET', '/monitor/?limit=1');
    expect(status).toBe(200);
  }, 600_000);

  it('syncs a Monitor of a job location, runs it as a runner Job pod, and shows the result in its status', async () => {
    const applied = Date.now();
    const api = monitorApi();
    const { name: _name, ...spec } = monitorAgainst(setup.target, {
      name: 'node-check',
      locations: [fixtures.JOB_LOCATION],
    });
    await monitors.createNamespacedCustomObject({
      ...api,
      body: {
        apiVersion: `${MONITOR_GROUP}/${MONITOR_VERSION}`,
        kind: 'Monitor',
        metadata: { name: 'node-check', annotations: { 'meerkat.dev/run-now': 'first' } },
        spec,
      },
    });
    const statusOf = async () =>
      (
        (await monitors.getNamespacedCustomObject({ ...api, name: 'node-check' })) as {
          status?: MonitorStatus;
        }
      ).status ?? {};
    const synced = await eventually(
      'Synced=True',
      async () => {
        const status = await statusOf();
        return status.conditions?.some((c) => c.type === 'Synced' && c.status === 'True') && status;
      },
      120_000,
    );
    monitorId = synced.monitorId!;
    const runId = await eventually(
      'the run-now run id',
      async () => ((await statusOf()).runNow as { runId?: string } | undefined)?.runId,
      60_000,
    );
    const pod = await eventually(
      'the runner pod Succeeded',
      async () => {
        const pods = await core.listNamespacedPod({
          namespace: setup.runnersNamespace,
          labelSelector: `meerkat.dev/run=${runId}`,
        });
        return pods.items.find((each) => each.status?.phase === 'Succeeded');
      },
      180_000,
    );
    expect(pod.spec).toMatchObject({ nodeName: node.nodeName, hostNetwork: true });
    const run = await eventually(
      'the run completed in the hub',
      async () => {
        const found = (await setup.hub<Run>('GET', `/runs/${runId}`)).data;
        return found?.status === 'completed' && found;
      },
      60_000,
    );
    expect(run.success).toBe(true);
    expect(setup.target.hits.some((hit) => hit.path === '/ok')).toBe(true);
    fixtures.report(
      'apply to first runner-Job result',
      `${((new Date(run.completedAt!).getTime() - setup.installStarted) / 1000).toFixed(0)} s from the chart's apply, ${((new Date(run.completedAt!).getTime() - applied) / 1000).toFixed(0)} s from the Monitor's`,
    );
    const shown = await eventually(
      'health and last run in the status',
      async () => {
        const status = await statusOf();
        return status.lastRunId === runId && status.health !== undefined && status;
      },
      60_000,
    );
    expect(shown).toMatchObject({ lastRunResult: 'Passed', health: 'healthy' });
    expect(
      (await batch.listNamespacedJob({ namespace: setup.runnersNamespace })).items.length,
    ).toBeGreaterThanOrEqual(1);
  }, 600_000);

  it('replaces a worker pod deleted mid-run, and its run does not stay running', async () => {
    // A run the worker is in the middle of (the target answers after 8 s) when its pod is deleted.
    const slow = monitorAgainst(setup.target, { name: 'slow-on-worker', locations: ['default'] });
    slow.nodes[0] = { ...slow.nodes[0]!, path: '/slow?ms=8000' };
    const put = await setup.hub('PUT', '/monitor/slow-on-worker', slow);
    expect(put.error).toBeUndefined();
    const triggered = await setup.hub<Run>('POST', '/runs/trigger/slow-on-worker', {
      environment: 'production',
    });
    const runId = triggered.data!.id;
    await eventually(
      'the run running on the worker',
      () => Promise.resolve(setup.target.hits.some((hit) => hit.path === '/slow')),
      60_000,
    );
    // The worker of location default, not the one of the job location, which creates runner Jobs.
    const selector = 'app.kubernetes.io/component=worker,meerkat.dev/location=default';
    const [worker] = (await core.listNamespacedPod({ namespace: RELEASE_NAMESPACE, labelSelector: selector }))
      .items;
    await core.deleteNamespacedPod({ namespace: RELEASE_NAMESPACE, name: worker!.metadata!.name! });
    await eventually(
      'a new worker pod Ready',
      async () => {
        const pods = await core.listNamespacedPod({ namespace: RELEASE_NAMESPACE, labelSelector: selector });
        return pods.items.some((pod) => pod.metadata?.uid !== worker!.metadata!.uid && fixtures.isReady(pod));
      },
      180_000,
    );
    const ended = await eventually(
      'the run ended',
      async () => {
        const run = (await setup.hub<Run>('GET', `/runs/${runId}`)).data;
        return run && run.status !== 'running' && run.status !== 'pending' && run;
      },
      180_000,
    );
    fixtures.report(
      'run in flight when its worker pod was deleted',
      `${ended.status}, success ${ended.success}`,
    );
    expect((await setup.hub<Run[]>('GET', '/runs/?status=running')).data).toEqual([]);
  }, 600_000);

  it('removes the hub monitor when the Monitor is deleted', async () => {
    const api = monitorApi();
    await monitors.deleteNamespacedCustomObject({ ...api, name: 'node-check' });
    await eventually(
      'the hub monitor gone',
      async () => (await setup.hub('GET', `/monitor/${monitorId}`)).status === 404,
      60_000,
    );
  }, 120_000);

  it('leaves no object of the chart after uninstall', async () => {
    await setup.release.uninstall();
    for (const object of setup.release.objects) {
      await eventually(
        `${object.kind}/${object.metadata.name} gone`,
        () => isGone(objectsApi, object as never),
        60_000,
      );
    }
    await eventually(
      'the release pods gone',
      async () => (await core.listNamespacedPod({ namespace: RELEASE_NAMESPACE })).items.length === 0,
      120_000,
    );
    setup.forgetRelease();
  }, 300_000);
});
