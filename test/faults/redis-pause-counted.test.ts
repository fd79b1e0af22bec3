import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger, LEDGER_HOLDS, ledgerVerdict } from './ledger-check.js';
import { startTwoWorkerWorkload, type Workload } from './two-worker-workload.js';

const MONITORS = 20;

// Issue 32's fourth row: Redis paused (SIGSTOP) 30 s lost 148 slots, as documented (latest slot only), but
// counted nowhere. Each slot no tick could queue is now a gap `skipped_late`.
describe('Redis paused (SIGSTOP) for 30 s under two workers', () => {
  let workload: Workload;
  beforeAll(async () => {
    workload = await startTwoWorkerWorkload('redis-pause', MONITORS);
  }, 240_000);
  afterAll(async () => {
    workload?.deployment.bed.redis.resume();
    await workload?.close();
  }, 60_000);

  it('counts every slot it could not queue as a gap, and checks the others once', async () => {
    const { deployment } = workload;
    const fromMs = Date.now();
    await sleep(10_000);
    deployment.bed.redis.pause();
    await sleep(30_000);
    deployment.bed.redis.resume();
    await sleep(20_000);
    const toMs = Date.now();

    const check = await checkLedger({
      label: 'Redis paused 30 s',
      ...workload,
      fromMs,
      toMs,
      settleMs: 120_000,
    });
    expect(deployment.exited(), 'processes that exited by themselves').toEqual([]);
    expect(ledgerVerdict(check)).toEqual(LEDGER_HOLDS);
    expect(check.ledger.gaps.skipped_late ?? 0).toBeGreaterThan(0);
  }, 420_000);
});
