// vitest globalSetup: a real node (containerd, kubelet, kube-scheduler; test/node/start-node.ts) beside the control
// plane that test/kube/global-setup.ts starts, only for runs that include a `*.node.test.ts` file. Listed after
// that setup in vitest.config.ts, so the cluster is up first and, teardowns running in reverse, down last.
import type { TestProject } from 'vitest/node';
import { startKubeNode } from './start-node.js';

export const NODE_TEST_SUFFIX = '.node.test.ts';

/** As test/kube/global-setup.ts decides for kube tests, from vitest's state API (empty: start rather than not). */
export function runIncludesNodeTests(project: TestProject): boolean {
  const files = project.vitest.state.getPaths();
  return files.length === 0 || files.some((file) => file.endsWith(NODE_TEST_SUFFIX));
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!runIncludesNodeTests(project)) return undefined;
  const cluster = project.getProvidedContext().kubeCluster;
  if (!cluster)
    throw new Error('the node needs the control plane of test/kube/global-setup.ts, which did not start');
  const node = await startKubeNode(cluster);
  project.provide('kubeNode', node.info);
  return () => node.stop();
}
