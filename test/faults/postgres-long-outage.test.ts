import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger, LEDGER_HOLDS, ledgerVerdict } from './ledger-check.js';
import { startTwoWorkerWorkload, type Workload } from './two-worker-workload.js';

const MONITORS = 20;
const RETRY_SECONDS = 30;
/** Four times RUN_RECORD_RETRY_SECONDS: the results of the first three quarters cannot wait that long. */
const OUTAGE_MS = 4 * RETRY_SECONDS * 1000;

// Issue 32's third row, scaled down: PostgreSQL stopped for ~5 min with RUN_RECORD_RETRY_SECONDS=60 left 1,384
// slots never run and not counted (skipped as saturated). Here 120 s with 30 s of retries: every slot is checked
// at its time; the results that outwait their retries are counted, never skipped silently.
describe('PostgreSQL stopped for four times RUN_RECORD_RETRY_SECONDS under two workers', () => {
  let workload: Workload;
  beforeAll(async () => {
    workload = await startTwoWorkerWorkload('pg-long', MONITORS, {
      RUN_RECORD_RETRY_SECONDS: String(RETRY_SECONDS),
    });
  }, 240_000);
  afterAll(async () => {
    await workload?.close();
  }, 60_000);

  it('checks every slot, records what it can, and counts the rest as dropped', async () => {
    const { deployment } = workload;
    const fromMs = Date.now();
    await sleep(10_000);
    await deployment.bed.postgres.stopImmediately();
    await sleep(OUTAGE_MS);
    await deployment.bed.postgres.start();
    await sleep(20_000);
    const toMs = Date.now();

    const check = await checkLedger({
      label: `PostgreSQL stopped ${OUTAGE_MS / 1000} s, RUN_RECORD_RETRY_SECONDS=${RETRY_SECONDS}`,
      ...workload,
      fromMs,
      toMs,
      settleMs: 180_000,
    });
    expect(deployment.exited(), 'processes that exited by themselves').toEqual([]);
    expect(ledgerVerdict(check)).toEqual(LEDGER_HOLDS);
    // Checks kept up: nothing was skipped for saturation, and what was lost was lost writing, counted.
    expect(check.ledger.gaps.skipped_saturated ?? 0).toBe(0);
    expect(check.ledger.gaps.dropped_dependency ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
