// The workload of issue 32's fault tests: hub, scheduler and two workers over a bed of their own, and a counting
// monitor every 10 s per id, each of which has run once (so every schedule exists when the test starts counting).
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  createMonitorsAndAwaitFirstRuns,
  startFaultDeployment,
  type FaultDeployment,
} from './fault-deployment.js';

export interface Workload {
  deployment: FaultDeployment;
  target: CountingTarget;
  ids: string[];
  close(): Promise<void>;
}

/**
 * `monitors` monitors named `<prefix>-<n>`, whose target answers after `monitor.ms`; `env` goes to every process.
 * Stops what started when it fails.
 */
export async function startTwoWorkerWorkload(
  prefix: string,
  monitors: number,
  env: Record<string, string> = {},
  monitor: { ms?: number } = {},
): Promise<Workload> {
  const target = await startCountingTarget();
  const ids = Array.from({ length: monitors }, (_, i) => `${prefix}-${i}`);
  let deployment: FaultDeployment | undefined;
  const close = async () => {
    await deployment?.close();
    await target.close();
  };
  try {
    deployment = await startFaultDeployment(['hub', 'scheduler', 'worker'], env);
    await deployment.start('worker', 'worker-2');
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids, monitor);
    return { deployment, target, ids, close };
  } catch (error) {
    await close();
    throw error;
  }
}
