// For scripts/node/smoke.sh and manual runs (docs/adr/0019-real-node-in-tests.md): the test suite's control plane
// (etcd, kube-apiserver, kube-controller-manager; test/kube/start-cluster.ts) started outside vitest, so a kubelet
// can be pointed at it by hand. Writes the cluster's details as JSON to the given file and runs until SIGTERM or SIGINT, then stops it all
// and removes its temp dir.
// Usage: npx tsx scripts/node/start-control-plane.ts /tmp/node-spike/run/cluster.json
import { writeFileSync } from 'node:fs';
import { findKubeBinaries } from '../../test/kube/binaries.js';
import { startKubeCluster } from '../../test/kube/start-cluster.js';

async function main(infoPath: string | undefined): Promise<void> {
  if (!infoPath) throw new Error('usage: start-control-plane.ts INFO_JSON_PATH');
  const started = Date.now();
  const cluster = await startKubeCluster(findKubeBinaries());
  writeFileSync(infoPath, JSON.stringify(cluster.info, null, 2));
  console.log(`[node:control-plane] ${cluster.info.serverUrl} ready after ${Date.now() - started} ms`);
  const stop = () => {
    void cluster.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Keeps the event loop alive until a signal arrives.
  setInterval(() => undefined, 60_000);
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
