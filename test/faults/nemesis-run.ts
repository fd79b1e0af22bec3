// One run of issue 32's randomized fault test, shared by the split deployment's test and `meerkat dev`'s: the
// seed from the environment, the drawn faults injected in turn while the API is probed, then the checker. A run
// prints its seed and the command that replays it.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailures, probeApi } from './api-probe.js';
import { checkLedger, LEDGER_HOLDS, ledgerVerdict, type LedgerCheck } from './ledger-check.js';
import { describeFault, injectFault, planFaults, type FaultKind, type InjectedFault } from './nemesis.js';
import type { Workload } from './two-worker-workload.js';

/** NEMESIS_SEED (a number, or `random` to draw one), else `fixed`: `npm test` replays the same faults. */
function nemesisSeed(fixed: number): number {
  const seed = process.env.NEMESIS_SEED;
  return seed === 'random' ? randomInt(2 ** 31) : Number(seed ?? fixed);
}

const nemesisFaults = (): number => Number(process.env.NEMESIS_FAULTS ?? 3);

const SETTLE_MS = 180_000;
/**
 * A slot within this long of a forgetting fault may go unreported: a batch taken just before it, or the first
 * slots after it while the schedules heal (within seconds, issue 32) and the worker's stalled batches come back.
 */
const FORGETTING_REACH_MS = 45_000;
/** The bound of each API call of the probe. */
const API_BOUND_MS = 10_000;

interface NemesisOutcome {
  check: LedgerCheck;
  /** API calls answered with neither data nor 503 within the bound. */
  apiFailures: ReturnType<typeof apiFailures>;
}

/**
 * Draws `faults` faults of `kinds` from `seed`, injects them into the workload's deployment one after the other
 * while `apiProcess` is probed, and checks the ledger of the whole window.
 */
async function runNemesis(input: {
  workload: Workload;
  seed: number;
  faults: number;
  kinds?: readonly FaultKind[];
  testFile: string;
  apiProcess?: string;
}): Promise<NemesisOutcome> {
  const { workload, seed, faults, testFile } = input;
  const { deployment } = workload;
  const plan = planFaults(seed, faults, input.kinds);
  console.log(`[nemesis] seed ${seed}: ${plan.map(describeFault).join(', ')}`);
  console.log(`[nemesis] replay: NEMESIS_SEED=${seed} NEMESIS_FAULTS=${faults} npx vitest run ${testFile}`);
  const probe = probeApi(deployment, input.apiProcess);
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
    label: `nemesis seed ${seed}`,
    ...workload,
    fromMs,
    toMs,
    settleMs: SETTLE_MS,
    excused,
  });
  // A call the test itself froze (its process held by SIGSTOP) cannot answer until it is let go.
  const frozen = (at: number) =>
    injected.some((f) => f.kind === 'dev-pause' && at >= f.fromMs - API_BOUND_MS && at <= f.toMs);
  const failures = apiFailures(probe.answers).filter((a) => !frozen(a.at));
  console.log(
    `[nemesis]   API answers: ${probe.answers.length}, failures ${JSON.stringify(failures.slice(0, 5))}`,
  );
  return { check, apiFailures: failures };
}

/**
 * The randomized fault test as a vitest suite over the workload `start` opens: the nemesis run, then no process
 * exited by itself, the ledger holds, and every API call answered with data or 503.
 */
export function describeNemesis(input: {
  title: string;
  fixedSeed: number;
  start: () => Promise<Workload>;
  kinds?: readonly FaultKind[];
  testFile: string;
  apiProcess?: string;
}): void {
  const seed = nemesisSeed(input.fixedSeed);
  const faults = nemesisFaults();
  describe(`${input.title} (NEMESIS_SEED=${seed})`, () => {
    let workload: Workload;
    beforeAll(async () => {
      workload = await input.start();
    }, 240_000);
    afterAll(async () => {
      await workload?.close();
    }, 60_000);

    it('ends every slot in one run or one counted gap, checks it once, fails no run falsely', async () => {
      const { check, apiFailures } = await runNemesis({ ...input, workload, seed, faults });
      expect(workload.deployment.exited(), 'processes that exited by themselves').toEqual([]);
      expect(ledgerVerdict(check)).toEqual(LEDGER_HOLDS);
      expect(apiFailures, 'API calls answered with neither data nor 503').toEqual([]);
    }, 900_000);
  });
}
