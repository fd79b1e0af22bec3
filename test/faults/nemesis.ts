// The nemesis of the randomized fault test (Jepsen's word): a seeded schedule of faults drawn from what an
// operator sees in production, each injected into a FaultDeployment and healed again. The same seed gives the
// same faults, in the same order, with the same durations, so a failure replays (docs/testing.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { seededRandom } from '../harness/seeded-random.js';
import type { MeerkatProcess } from '../harness/processes.js';
import { exitWithin, type FaultDeployment } from './fault-deployment.js';

const SPLIT_FAULT_KINDS = [
  'postgres-stop',
  'postgres-pause',
  'postgres-restart',
  'redis-pause',
  'redis-restart-empty',
  'redis-key-loss',
  'worker-kill',
  'worker-term',
  'scheduler-kill',
  'scheduler-term',
  'postgres-stop-worker-kill',
  'rolling-restart',
] as const;
/**
 * What is real for `meerkat dev` pointed at a PostgreSQL (docs/testing.md): its database's faults, and its one
 * process killed, stopped on SIGTERM or paused (SIGSTOP, as a laptop sleeps). It has no Redis and no other process.
 */
export const DEV_FAULT_KINDS = [
  'postgres-stop',
  'postgres-pause',
  'postgres-restart',
  'dev-kill',
  'dev-term',
  'dev-pause',
  'postgres-stop-dev-kill',
] as const;
export type FaultKind = (typeof SPLIT_FAULT_KINDS)[number] | (typeof DEV_FAULT_KINDS)[number];

/**
 * Faults after which a slot may end with nobody having said why (the auditor then records it `lost`): what was
 * only in the memory of Redis or of a process killed while PostgreSQL was away (its unwritten gaps) is gone.
 * Every other fault must leave each slot a run or a gap with a reason.
 */
const FORGETTING: ReadonlySet<FaultKind> = new Set([
  'redis-restart-empty',
  'redis-key-loss',
  'postgres-stop-worker-kill',
  // `meerkat dev` keeps its schedules and queue in its memory: while it is down nobody holds a slot.
  'dev-kill',
  'dev-term',
  'postgres-stop-dev-kill',
]);

export interface PlannedFault {
  kind: FaultKind;
  /** How long the fault lasts before it is healed (for a kill: until the restart). */
  holdMs: number;
  /** Quiet time after it is healed, before the next fault. */
  calmMs: number;
  /** Which of the two workers, where the fault picks one. */
  worker: 'worker' | 'worker-2';
}

/** `count` faults drawn from `seed`: `kinds` uniformly, holds of 5–40 s, calm of 5–15 s. */
export function planFaults(
  seed: number,
  count: number,
  kinds: readonly FaultKind[] = SPLIT_FAULT_KINDS,
): PlannedFault[] {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  return Array.from({ length: count }, () => ({
    kind: kinds[Math.floor(random() * kinds.length)] ?? 'postgres-stop',
    holdMs: between(5_000, 40_000),
    calmMs: between(5_000, 15_000),
    worker: random() < 0.5 ? 'worker' : 'worker-2',
  }));
}

/** A fault as it happened: when it began and was healed, and whether it may leave slots unreported. */
export interface InjectedFault extends PlannedFault {
  fromMs: number;
  toMs: number;
  forgetting: boolean;
}

const processNamed = (deployment: FaultDeployment, name: string): MeerkatProcess => {
  const found = deployment.processes.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no process named ${name}`);
  return found;
};

/** kill -9, wait `holdMs`, start it again. */
async function killAndRestart(deployment: FaultDeployment, name: string, holdMs: number) {
  const process = processNamed(deployment, name);
  deployment.signal(process, 'SIGKILL');
  await exitWithin(process, 10_000);
  await sleep(holdMs);
  await deployment.replace(process);
}

/** SIGTERM, wait for the process to end its grace (it must, within SHUTDOWN_GRACE_SECONDS), start it again. */
async function terminateAndRestart(deployment: FaultDeployment, name: string) {
  const process = processNamed(deployment, name);
  deployment.signal(process, 'SIGTERM');
  const exit = await exitWithin(process, 45_000);
  if (exit === undefined) throw new Error(`${name} still ran 45 s after SIGTERM`);
  await deployment.replace(process);
}

/** PostgreSQL stopped, `name` killed halfway through the outage, started again once PostgreSQL is back. */
async function killDuringOutage(deployment: FaultDeployment, name: string, holdMs: number) {
  await deployment.bed.postgres.stopImmediately();
  await sleep(holdMs / 2);
  const process = processNamed(deployment, name);
  deployment.signal(process, 'SIGKILL');
  await exitWithin(process, 10_000);
  await sleep(holdMs / 2);
  await deployment.bed.postgres.start();
  await deployment.replace(process);
}

async function withRedis(deployment: FaultDeployment, use: (redis: Redis) => Promise<unknown>) {
  const redis = new Redis(deployment.bed.redis.url, { maxRetriesPerRequest: 1 });
  try {
    await use(redis);
  } finally {
    redis.disconnect();
  }
}

const inject: Record<FaultKind, (deployment: FaultDeployment, fault: PlannedFault) => Promise<void>> = {
  async 'postgres-stop'({ bed }, { holdMs }) {
    await bed.postgres.stopImmediately();
    await sleep(holdMs);
    await bed.postgres.start();
  },
  async 'postgres-pause'({ bed }, { holdMs }) {
    bed.postgres.pause();
    await sleep(Math.min(holdMs, 20_000));
    bed.postgres.resume();
  },
  async 'postgres-restart'({ bed }) {
    await bed.postgres.stop();
    await bed.postgres.start();
  },
  async 'redis-pause'({ bed }, { holdMs }) {
    bed.redis.pause();
    await sleep(Math.min(holdMs, 20_000));
    bed.redis.resume();
  },
  async 'redis-restart-empty'({ bed }, { holdMs }) {
    await bed.redis.kill();
    await sleep(Math.min(holdMs, 5_000));
    await bed.redis.start();
  },
  async 'redis-key-loss'(deployment, { holdMs }) {
    // Which keys an eviction takes is chance: the next slots alone, or the definitions too.
    const keys = ['runs:meerkat:default:next', 'runs:meerkat:default:schedules'];
    await withRedis(deployment, (redis) => redis.del(...keys.slice(0, holdMs % 2 === 0 ? 1 : 2)));
  },
  async 'worker-kill'(deployment, { worker, holdMs }) {
    await killAndRestart(deployment, worker, Math.min(holdMs, 10_000));
  },
  async 'worker-term'(deployment, { worker }) {
    await terminateAndRestart(deployment, worker);
  },
  async 'scheduler-kill'(deployment, { holdMs }) {
    await killAndRestart(deployment, 'scheduler', Math.min(holdMs, 10_000));
  },
  async 'scheduler-term'(deployment) {
    await terminateAndRestart(deployment, 'scheduler');
  },
  // Issue 32's second row: a worker killed in the middle of an outage, started again once it is over.
  async 'postgres-stop-worker-kill'(deployment, { worker, holdMs }) {
    await killDuringOutage(deployment, worker, holdMs);
  },
  // As `helm upgrade` rolls the Deployments: each process in turn ends on SIGTERM and a new one takes over.
  async 'rolling-restart'(deployment) {
    for (const name of ['scheduler', 'worker', 'worker-2', 'hub'])
      await terminateAndRestart(deployment, name);
  },
  async 'dev-kill'(deployment, { holdMs }) {
    await killAndRestart(deployment, 'dev', Math.min(holdMs, 10_000));
  },
  async 'dev-term'(deployment) {
    await terminateAndRestart(deployment, 'dev');
  },
  // SIGSTOP, as a laptop's sleep or a debugger holds it: timers fire late, nothing is lost from memory. Sent with
  // process.kill, since child.kill would mark the child `killed` for good.
  async 'dev-pause'(deployment, { holdMs }) {
    const { pid } = processNamed(deployment, 'dev').process.child;
    if (pid === undefined) throw new Error('meerkat dev has no pid');
    process.kill(pid, 'SIGSTOP');
    await sleep(Math.min(holdMs, 20_000));
    process.kill(pid, 'SIGCONT');
  },
  async 'postgres-stop-dev-kill'(deployment, { holdMs }) {
    await killDuringOutage(deployment, 'dev', holdMs);
  },
};

/** Injects `fault`, heals it, and waits its calm: what happened, with its times. */
export async function injectFault(deployment: FaultDeployment, fault: PlannedFault): Promise<InjectedFault> {
  const fromMs = Date.now();
  await inject[fault.kind](deployment, fault);
  const toMs = Date.now();
  await sleep(fault.calmMs);
  return { ...fault, fromMs, toMs, forgetting: FORGETTING.has(fault.kind) };
}

export const describeFault = (fault: PlannedFault): string =>
  `${fault.kind}(${fault.kind.includes('worker') ? `${fault.worker}, ` : ''}hold ${fault.holdMs} ms, calm ${fault.calmMs} ms)`;
