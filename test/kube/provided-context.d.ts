// Values handed from test/kube/global-setup.ts to test files via inject().
// The import makes this file a module, so the block below augments vitest's types instead of replacing them.
import 'vitest';
import type { KubeClusterInfo } from './start-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set only when the run includes a `*.kube.test.ts` file; use the helpers in test/kube/test-cluster.ts. */
    kubeCluster?: KubeClusterInfo;
  }
}
