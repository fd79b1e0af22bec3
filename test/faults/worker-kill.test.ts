import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_LOCK_MS, STALLED_CHECK_MS } from '../../hub/src/system/queue-locks.js';
import { eventually } from '../harness/eventually.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import { countingMonitor, startFaultDeployment, type FaultDeployment } from './fault-deployment.js';
import { formatCounts, isFalseFailure } from './slot-accounting.js';

const MONITORS = 20;
const TARGET_DELAY_MS = 3_000;
/**
 * From the replacement worker's start, the dead worker's jobs must come back and run. Their locks outlive the
 * kill by at most JOB_LOCK_MS; a stalled check marks the jobs under way, the next moves those unlocked back to
 * waiting, and a check may skip its turn (it comes within the millisecond the previous one's marker expires):
 * JOB_LOCK_MS + 4 checks, then the run itself. Twice that, for a loaded machine (CI). Counted from the
 * replacement's start, so a replacement slow to start does not eat into it.
 */
const SETTLE_MS = 2 * (JOB_LOCK_MS + 4 * STALLED_CHECK_MS + TARGET_DELAY_MS);

/** When the first and the last of `hits` arrived, in seconds after `from`. */
function secondsAfter(from: number, hits: ReadonlyArray<{ arrivedAt: number }>): string {
  if (hits.length === 0) return 'never';
  const times = hits.map((hit) => (hit.arrivedAt - from) / 1000);
  return `${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} s`;
}

describe('a worker killed with kill -9 while runs are in flight', () => {
  let target: CountingTarget;
  let deployment: FaultDeployment;
  beforeAll(async () => {
    target = await startCountingTarget();
    // No scheduler: the runs of this test are the manual ones it triggers (the monitors' schedule is daily).
    deployment = await startFaultDeployment(['hub', 'worker']);
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
    await target?.close();
  }, 60_000);

  it('leaves no run running or pending, and fails none whose target answered 200', async () => {
    const ids = Array.from({ length: MONITORS }, (_, i) => `worker-kill-${i}`);
    const daily = { every: 1, unit: 'DAY' };
    for (const id of ids) {
      const monitor = countingMonitor(target, id, { ms: TARGET_DELAY_MS, frequency: daily });
      expect((await deployment.api('PUT', `/monitor/${id}`, monitor)).status).toBe(201);
    }
    for (const id of ids) {
      const triggered = await deployment.api('POST', `/runs/trigger/${id}`, { environment: 'production' });
      expect(triggered.status).toBe(201);
    }
    await eventually(
      'every run waiting on the slow target',
      () => Promise.resolve(target.inFlight() === MONITORS),
      30_000,
    );
    const [worker] = deployment.processes.filter((p) => p.name === 'worker');
    deployment.signal(worker!, 'SIGKILL');
    const killedAt = Date.now();
    await deployment.start('worker', 'worker-2');
    const replacedAt = Date.now();

    let runs = await deployment.runs();
    const unfinished = () => runs.filter((run) => run.status === 'pending' || run.status === 'running');
    const settleEnds = replacedAt + SETTLE_MS;
    while (unfinished().length > 0 && Date.now() < settleEnds) {
      await sleep(1_000);
      runs = await deployment.runs();
    }
    const counts = {
      expected: MONITORS,
      recorded: runs.filter((run) => run.status === 'completed').length,
      missing: 0,
      duplicated: runs.length - MONITORS,
      stuck: unfinished().length,
      falseFailures: runs.filter((run) => isFalseFailure(run, target.hits)).length,
    };
    const killedRequests = target.hits.filter(
      (hit) => hit.arrivedAt < killedAt && hit.answeredAt === undefined,
    );
    console.log(formatCounts('worker kill -9 with runs in flight (recorded = completed)', counts));
    console.log(
      `[faults]   requests cut by the kill: ${killedRequests.length}; failed runs: ` +
        `${runs.filter((run) => run.status === 'failed').length}; target requests in all: ${target.hits.length}; ` +
        `replacement ready ${((replacedAt - killedAt) / 1000).toFixed(1)} s after the kill; runs sent again ` +
        `${secondsAfter(
          killedAt,
          target.hits.filter((hit) => hit.arrivedAt >= killedAt),
        )} after the kill`,
    );

    expect(killedRequests.length, 'runs in flight when the worker died').toBe(MONITORS);
    expect(deployment.exited(), 'processes that exited').toEqual([]);
    expect(counts).toMatchObject({ stuck: 0, falseFailures: 0, duplicated: 0 });
  }, 200_000);
});
