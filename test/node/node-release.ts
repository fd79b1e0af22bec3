// Everything chart.node.test.ts installs and removes around its assertions: the harness's database, a loopback
// target, the host-network webhook, the runner and Monitor namespaces with the runners' key (a platform team's
// prerequisites), and the chart itself, rendered with both values files, adapted to the node and installed.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChart } from '../chart/render-chart.js';
import { createTestDatabase, testRedisUrlOnDatabase } from '../harness/database.js';
import { freePort } from '../harness/processes.js';
import { createTestNamespace, kubeCluster, mergePatch } from '../kube/test-cluster.js';
import { startTarget } from '../runs/run-fixtures.js';
import { adaptToNode, installChart, type Release } from './chart-install.js';
import { HOST_NETWORK_LABEL, startHostNetworkWebhook } from './host-network-webhook.js';
import * as fixtures from './node-fixtures.js';
import type { KubeNodeInfo } from './start-node.js';

/** test/chart/render-chart.ts renders the release into this namespace. */
export const RELEASE_NAMESPACE = 'meerkat';
const valuesFile = fileURLToPath(new URL('values-node.yaml', import.meta.url));

export type NodeRelease = Awaited<ReturnType<typeof installOnNode>>;

export async function installOnNode(node: KubeNodeInfo, kubeConfig: KubeConfig) {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-node-chart-'));
  const keys = fixtures.apiKeys();
  const database = await createTestDatabase();
  const target = await startTarget();
  const webhook = await startHostNetworkWebhook(kubeConfig, kubeCluster());
  const runners = await createTestNamespace('node-runners');
  // Where the hub's runner pods appear: the webhook puts them on the host network.
  await core.patchNamespace(
    { name: runners.name, body: { metadata: { labels: { [HOST_NETWORK_LABEL]: 'true' } } } },
    mergePatch,
  );
  const monitors = await createTestNamespace('node-monitors');
  await core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  await core.createNamespacedSecret({
    namespace: runners.name,
    body: {
      metadata: { name: fixtures.RUNNER_SECRET.name },
      stringData: { [fixtures.RUNNER_SECRET.key]: keys.runner },
    },
  });
  const hubUrl = `http://127.0.0.1:${await freePort()}`;
  const runtimeValues = fixtures.writeRuntimeValues(scratch, {
    databaseUrl: database.url,
    redisUrl: testRedisUrlOnDatabase(12),
    keys,
    hubPort: Number(new URL(hubUrl).port),
    operatorHealthPort: await freePort(),
    defaultMetricsPort: await freePort(),
    runnerNamespace: runners.name,
    node,
  });
  const rendered = renderChart([valuesFile, runtimeValues]).objects;
  const metricsPorts: Record<string, number> = {};
  for (const deployment of rendered.filter((object) => object.kind === 'Deployment'))
    metricsPorts[deployment.metadata.name] = await freePort();
  const apiserver = new URL(kubeCluster().serverUrl);
  const objects = adaptToNode(rendered, {
    node,
    apiserver: { host: apiserver.hostname, port: Number(apiserver.port) },
    hubUrl,
    metricsPorts,
  });
  const archive = statSync(join(node.imagesDir, 'meerkat.oci.tar')).size;
  fixtures.report('image', `${(archive / 2 ** 20).toFixed(0)} MiB as an OCI archive (compressed layers)`);
  const installStarted = Date.now();
  let release: Release | undefined = await installChart(kubeConfig, RELEASE_NAMESPACE, objects);
  return {
    release,
    installStarted,
    target,
    runnersNamespace: runners.name,
    monitorsNamespace: monitors.name,
    hub: fixtures.hubClient(hubUrl, keys.admin),
    /** Marks the release uninstalled by the test itself. */
    forgetRelease() {
      release = undefined;
    },
    async close() {
      await release?.uninstall().catch(() => undefined);
      await webhook.close();
      await Promise.all([
        runners.delete(),
        monitors.delete(),
        core.deleteNamespace({ name: RELEASE_NAMESPACE }).catch(() => undefined),
      ]);
      await target.close();
      await database.drop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
