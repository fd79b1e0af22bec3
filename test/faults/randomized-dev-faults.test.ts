import { DEV_FAULT_KINDS } from './nemesis.js';
import { describeNemesis } from './nemesis-run.js';
import { startDevWorkload } from './two-worker-workload.js';

// Issue 32's randomized fault test over `meerkat dev`: the same nemesis, drawing only the faults real for one
// process over a PostgreSQL without Redis (DEV_FAULT_KINDS; docs/testing.md says why), the same workload of
// 20 monitors every 10 s and the same checker as randomized-faults.test.ts. NEMESIS_SEED=<seed> replays a failure.
describeNemesis({
  title: 'randomized faults over meerkat dev',
  fixedSeed: 2,
  start: () => startDevWorkload('nemesis-dev', 20),
  kinds: DEV_FAULT_KINDS,
  testFile: 'test/faults/randomized-dev-faults.test.ts',
  apiProcess: 'dev',
});
