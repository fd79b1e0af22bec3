import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitWithin, startFaultDeployment, type FaultDeployment } from './fault-deployment.js';

const GRACE_SECONDS = 5;
/** What "within its grace" allows on top: the process's own exit, on a loaded machine. */
const SLACK_SECONDS = 5;

describe('a worker on SIGTERM after PostgreSQL and Redis were stopped', () => {
  let deployment: FaultDeployment;
  beforeAll(async () => {
    deployment = await startFaultDeployment(['worker'], { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) });
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
  }, 60_000);

  it('exits within SHUTDOWN_GRACE_SECONDS whatever its dependencies do', async () => {
    const [worker] = deployment.processes;
    await Promise.all([deployment.bed.postgres.stopImmediately(), deployment.bed.redis.kill()]);
    // Let its connections notice and start their retries before the signal.
    await sleep(3_000);
    const aliveBeforeSignal = deployment.exited();
    deployment.signal(worker!, 'SIGTERM');
    const exit = await exitWithin(worker!, (GRACE_SECONDS + SLACK_SECONDS) * 1000);
    console.log(
      `[faults] worker SIGTERM without PostgreSQL and Redis: ` +
        `${exit === undefined ? `still running after ${GRACE_SECONDS + SLACK_SECONDS} s` : `exit ${exit.code} after ${exit.ms} ms`}`,
    );

    expect(aliveBeforeSignal, 'processes that died of the outage itself').toEqual([]);
    expect(exit, `exit within ${GRACE_SECONDS} s (+${SLACK_SECONDS} s)`).toBeDefined();
  }, 60_000);
});
