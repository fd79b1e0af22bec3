import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultDeployment } from './fault-deployment.js';
import { describeFault, injectFault, planFaults, type InjectedFault } from './nemesis.js';
import { checkLedger, LEDGER_HOLDS, ledgerVerdict } from './ledger-check.js';
import { startTwoWorkerWorkload, type Workload } from './two-worker-workload.js';

// Issue 32's randomized fault test: a nemesis (a seeded schedule of faults), a workload (monitors every 10 s on
// hub, scheduler and two workers) and a checker. A failure prints its seed: NEMESIS_SEED=<seed> replays it.
// `npm test` runs a fixed seed, so that CI replays the same faults and stays reproducible; NEMESIS_SEED=random
// draws one, and scripts/nemesis.sh walks many (docs/testing.md).
const DEFAULT_SEED = 2;
const SEED =
  process.env.NEMESIS_SEED === 'random'
    ? randomInt(2 ** 31)
    : Number(process.env.NEMESIS_SEED ?? DEFAULT_SEED);
const FAULTS = Number(process.env.NEMESIS_FAULTS ?? 3);
const MONITORS = 20;
const SETTLE_MS = 180_000;
/**
 * A slot within this long of a forgetting fault may go unreported: a batch taken just before it, or the first
 * slots after it while the schedules heal (within seconds, issue 32) and the worker's stalled batches come back.
 */
const FORGETTING_REACH_MS = 45_000;

/** The hub's API called every 2 s through the run: each answer's status, or `no answer` while the hub is down. */
function probeApi(deployment: FaultDeployment) {
  const answers: Array<{ at: number; status: number | string }> = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const at = Date.now();
      const hub = deployment.processes.find((p) => p.name === 'hub');
      const hubRuns = hub !== undefined && hub.process.child.exitCode === null && !hub.process.child.killed;
      if (hubRuns)
        await deployment.api('GET', '/monitor/', undefined, 10_000).then(
          (answer) => answers.push({ at, status: answer.status }),
          (error: unknown) => answers.push({ at, status: `no answer: ${String(error)}` }),
        );
      await sleep(2_000);
    }
  })();
  return {
    answers,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

describe(`randomized faults over hub, scheduler and two workers (NEMESIS_SEED=${SEED})`, () => {
  let workload: Workload;
  beforeAll(async () => {
    workload = await startTwoWorkerWorkload('nemesis', MONITORS);
  }, 240_000);
  afterAll(async () => {
    await workload?.close();
  }, 60_000);

  it('ends every slot in one run or one counted gap, checks it once, fails no run falsely', async () => {
    const { deployment } = workload;
    const plan = planFaults(SEED, FAULTS);
    console.log(`[nemesis] seed ${SEED}: ${plan.map(describeFault).join(', ')}`);
    console.log(
      `[nemesis] replay: NEMESIS_SEED=${SEED} NEMESIS_FAULTS=${FAULTS} npx vitest run test/faults/randomized-faults.test.ts`,
    );
    const probe = probeApi(deployment);
    const fromMs = Date.now();
    await sleep(5_000);
    const injected: InjectedFault[] = [];
    for (const fault of plan) {
      injected.push(await injectFault(deployment, fault));
      const last = injected.at(-1)!;
      console.log(
        `[nemesis] ${describeFault(last)}: ${new Date(last.fromMs).toISOString()}..+${last.toMs - last.fromMs} ms`,
      );
    }
    const toMs = Date.now();
    await probe.stop();

    // Unreported slots near a forgetting fault are allowed (the auditor records them `lost`); any other is a slot
    // lost without a word.
    const excused = (slotMs: number) =>
      injected.some(
        (f) =>
          f.forgetting && slotMs >= f.fromMs - FORGETTING_REACH_MS && slotMs <= f.toMs + FORGETTING_REACH_MS,
      );
    const check = await checkLedger({
      label: `nemesis seed ${SEED}`,
      ...workload,
      fromMs,
      toMs,
      settleMs: SETTLE_MS,
      excused,
    });
    const apiFailures = probe.answers.filter(
      (a) => typeof a.status !== 'number' || (a.status >= 500 && a.status !== 503),
    );
    console.log(
      `[nemesis]   API answers: ${probe.answers.length}, failures ${JSON.stringify(apiFailures.slice(0, 5))}`,
    );

    expect(deployment.exited(), 'processes that exited by themselves').toEqual([]);
    expect(ledgerVerdict(check)).toEqual(LEDGER_HOLDS);
    expect(apiFailures, 'API calls answered with neither data nor 503').toEqual([]);
  }, 900_000);
});
