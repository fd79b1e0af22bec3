import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeerkatProcess } from '../harness/processes.js';
import { eventually } from '../harness/eventually.js';
import { countingMonitor, OTHER_ORGANIZATION, TEN_SECONDS_MS } from './fault-deployment.js';
import { checkLedger, LEDGER_HOLDS, ledgerVerdict } from './ledger-check.js';
import { startTwoWorkerWorkload, type Workload } from './two-worker-workload.js';

const MONITORS = 60;
const FEW = 4;
const fewIds = Array.from({ length: FEW }, (_, i) => `overload-few-${i}`);
// Two workers of 3 places each, and a target that answers after 3 s: about 2 checks a second where 6 are due.
const PLACES = 3;
const TARGET_MS = 3_000;
const MAX_HELD_SLOTS = 30;
// A run starts after its place is given, which follows the check for a newer slot by a few milliseconds.
const START_AFTER_PLACE_MS = 2_000;

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The value of a series with only the process's own labels, or undefined when it is not there. */
async function seriesOf(process: MeerkatProcess, name: string): Promise<number | undefined> {
  const text = await (await fetch(process.metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

// Issue 32's last row: offered three times what they can check, two workers held every slot they took (6.8 GB
// and growing, lateness p99 89 s). Now each holds at most WORKER_MAX_HELD_SLOTS, sheds a slot once a newer one
// of its monitor is due, and counts it `shed`.
describe('two workers offered three times what they can check by one organization', () => {
  let workload: Workload;
  beforeAll(async () => {
    workload = await startTwoWorkerWorkload('overload', MONITORS, {
      WORKER_CONCURRENCY: String(PLACES),
      WORKER_MAX_HELD_SLOTS: String(MAX_HELD_SLOTS),
    });
  }, 240_000);
  afterAll(async () => {
    await workload?.close();
  }, 60_000);

  it('holds a bounded number of slots, runs them within a period, counts what it sheds, spares the other tenant', async () => {
    const { deployment, target, ids } = workload;
    // Every schedule exists (each monitor ran once, quickly); from now on each check takes 3 s.
    for (const id of ids) {
      const answer = await deployment.api(
        'PUT',
        `/monitor/${id}`,
        countingMonitor(target, id, { ms: TARGET_MS }),
      );
      expect(answer.status, `PUT /monitor/${id}`).toBe(200);
    }
    // Another tenant's few monitors, as slow, on the same workers.
    for (const id of fewIds) {
      const monitor = countingMonitor(target, id, { ms: TARGET_MS });
      const answer = await deployment.api('PUT', `/monitor/${id}`, monitor, 10_000, deployment.otherKey);
      expect(answer.status, `PUT /monitor/${id} as ${OTHER_ORGANIZATION}`).toBe(201);
    }
    await eventually(async () => {
      const ran = new Set((await deployment.runs()).map((run) => run.monitorId));
      return fewIds.every((id) => ran.has(id)) || undefined;
    }, 60_000);
    const fromMs = Date.now() + TEN_SECONDS_MS;
    const workers = deployment.processes.filter((p) => p.name.startsWith('worker'));
    const held: number[] = [];
    let rss = 0;
    while (Date.now() < fromMs + 60_000) {
      for (const worker of workers) {
        const value = await seriesOf(worker, 'meerkat_worker_slots_held').catch(() => undefined);
        if (value !== undefined) held.push(value);
        rss = Math.max(rss, (await seriesOf(worker, 'process_resident_memory_bytes').catch(() => 0)) ?? 0);
      }
      await sleep(1_000);
    }
    const toMs = Date.now();

    const check = await checkLedger({ label: 'overload 3x', ...workload, fromMs, toMs, settleMs: 120_000 });
    const fair = await checkLedger({
      label: `${OTHER_ORGANIZATION}'s ${FEW} monitors beside it`,
      ...workload,
      ids: fewIds,
      organization: OTHER_ORGANIZATION,
      fromMs,
      toMs,
      settleMs: 60_000,
    });
    const runs = await deployment.runs();
    const latenessOf = (monitors: readonly string[]) =>
      runs
        .filter(
          (run) => monitors.includes(run.monitorId) && run.scheduleSlot !== null && run.startedAt !== null,
        )
        .filter((run) => Number(run.scheduleSlot) >= fromMs && Number(run.scheduleSlot) < toMs)
        .map((run) => run.startedAt!.getTime() - Number(run.scheduleSlot));
    const late = latenessOf(ids);
    const worst = Math.max(...late);
    const fewLate = latenessOf(fewIds);
    console.log(
      `[faults]   overload: ${late.length} runs, latest start ${worst} ms after its slot; ` +
        `held at most ${Math.max(...held)} of ${MAX_HELD_SLOTS} (${held.length} samples); ` +
        `worker RSS at most ${Math.round(rss / 2 ** 20)} MiB; runs started after their slot: ` +
        `${OTHER_ORGANIZATION}'s median ${median(fewLate)} ms, most ${Math.max(...fewLate)} ms; ` +
        `the other's median ${median(late)} ms, most ${worst} ms`,
    );
    expect(deployment.exited(), 'processes that exited by themselves').toEqual([]);
    expect(ledgerVerdict(check)).toEqual(LEDGER_HOLDS);
    expect(check.ledger.gaps.shed ?? 0, 'slots shed and counted').toBeGreaterThan(0);
    expect(late.length, 'slots checked in the window').toBeGreaterThan(0);
    expect(worst, 'a run starts before a newer slot of its monitor is due').toBeLessThan(
      TEN_SECONDS_MS + START_AFTER_PLACE_MS,
    );
    expect(held.length, 'samples of meerkat_worker_slots_held').toBeGreaterThan(0);
    expect(Math.max(...held), 'slots a worker holds at once').toBeLessThanOrEqual(MAX_HELD_SLOTS);
    // Places go by turns across organizations (system/places.ts), and what is shed to make room is the largest
    // organization's: the small tenant loses no slot and does not wait behind the big one's line.
    expect(ledgerVerdict(fair)).toEqual(LEDGER_HOLDS);
    expect(fair.ledger.gaps, `${OTHER_ORGANIZATION}'s gaps`).toEqual({});
    expect(median(fewLate), `${OTHER_ORGANIZATION}'s median start after its slot`).toBeLessThan(TARGET_MS);
    expect(median(fewLate), 'the small tenant waits less than the big one').toBeLessThan(median(late));
    const hubText = await (await fetch(deployment.hub().metricsUrl)).text();
    expect(hubText).toMatch(
      /meerkat_slots_missed_total\{[^}]*location="default"[^}]*reason="shed"[^}]*\} [1-9]/,
    );
  }, 600_000);
});
