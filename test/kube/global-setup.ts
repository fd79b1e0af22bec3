// vitest globalSetup: one throwaway Kubernetes control plane for the whole run, shared by every `*.kube.test.ts`
// file (each works in namespaces of its own). Runs without such a file (e.g. `npx vitest run test/http`) do not
// pay for it. Without the binaries the run fails with one line naming the command that builds them.
import type { TestProject } from 'vitest/node';
import { findKubeBinaries } from './binaries.js';
import { startKubeCluster } from './start-cluster.js';

export const KUBE_TEST_SUFFIX = '.kube.test.ts';
// test/node/global-setup.ts runs a kubelet against this control plane for the `*.node.test.ts` files.
const CLUSTER_TEST_SUFFIXES = [KUBE_TEST_SUFFIX, '.node.test.ts'];

/**
 * Whether this run's files include a Kubernetes or node test. globalSetup runs after vitest has chosen the
 * files, but it is handed no list of them, so this reads vitest's state API (marked experimental); if that ever
 * yields nothing, start the cluster rather than leave a test without one.
 */
function runIncludesKubeTests(project: TestProject): boolean {
  const files = project.vitest.state.getPaths();
  return (
    files.length === 0 || files.some((file) => CLUSTER_TEST_SUFFIXES.some((suffix) => file.endsWith(suffix)))
  );
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!runIncludesKubeTests(project)) return undefined;
  const cluster = await startKubeCluster(findKubeBinaries());
  project.provide('kubeCluster', cluster.info);
  return () => cluster.stop();
}
