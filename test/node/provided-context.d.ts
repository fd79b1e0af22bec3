// Values handed from test/node/global-setup.ts to test files via inject().
// The import makes this file a module, so the block below augments vitest's types instead of replacing them.
import 'vitest';
import type { KubeNodeInfo } from './start-node.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set only when the run includes a `*.node.test.ts` file. */
    kubeNode?: KubeNodeInfo;
  }
}
