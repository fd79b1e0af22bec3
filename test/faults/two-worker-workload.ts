// The workloads of issue 32's fault tests: hub, scheduler and two workers over a bed of their own (or `meerkat dev`
// alone over the bed's PostgreSQL), and a counting monitor every 10 s per id, each of which has run once (so every
// schedule exists when the test starts counting).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The target, the deployment `deploy` starts, `monitors` monitors; stops what started when it fails. */
async function startWorkload(
  prefix: string,
  monitors: number,
  deploy: () => Promise<FaultDeployment>,
  monitor: { ms?: number },
  cleanUp: () => void = () => undefined,
): Promise<Workload> {
  const target = await startCountingTarget();
  const ids = Array.from({ length: monitors }, (_, i) => `${prefix}-${i}`);
  let deployment: FaultDeployment | undefined;
  const close = async () => {
    await deployment?.close();
    await target.close();
    cleanUp();
  };
  try {
    deployment = await deploy();
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids, monitor);
    return { deployment, target, ids, close };
  } catch (error) {
    await close();
    throw error;
  }
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
  return startWorkload(
    prefix,
    monitors,
    async () => {
      const deployment = await startFaultDeployment(['hub', 'scheduler', 'worker'], env);
      await deployment.start('worker', 'worker-2');
      return deployment;
    },
    monitor,
  );
}

/**
 * `meerkat dev` as one process over the bed's PostgreSQL (DATABASE_URL, so the test can stop it and read the
 * ledger) and without Redis: its schedules and run queue in its memory, as on a laptop. Its data directory (the
 * dev credentials) is a temp dir of its own, removed on close.
 */
export async function startDevWorkload(prefix: string, monitors: number): Promise<Workload> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meerkat-dev-faults-'));
  return startWorkload(
    prefix,
    monitors,
    () => startFaultDeployment(['dev'], { MEERKAT_DATA_DIR: dataDir }, { redis: false }),
    {},
    () => rmSync(dataDir, { recursive: true, force: true }),
  );
}
