import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The second starts a Kubernetes control plane only for runs that include a *.kube.test.ts or *.node.test.ts
    // file; the third a node (containerd, kubelet, scheduler) beside it only for *.node.test.ts files.
    globalSetup: ['test/harness/global-setup.ts', 'test/kube/global-setup.ts', 'test/node/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './test/harness/summary-reporter.ts'],
  },
});
