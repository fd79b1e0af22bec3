import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  createMonitorsAndAwaitFirstRuns,
  scheduleOf,
  startFaultDeployment,
  type ApiAnswer,
  type FaultDeployment,
} from './fault-deployment.js';
import { countSlots, formatCounts, type SlotCounts } from './slot-accounting.js';

const MONITORS = 50;
const OUTAGE_MS = 20_000;
const AFTER_OUTAGE_MS = 20_000;
const SETTLE_MS = 90_000;

interface Answer {
  path: string;
  status: number | 'no answer';
  retryAfter: string | null;
  body: unknown;
}

/** An answer a client may see while the database is away: a success, or 503 with Retry-After and the body. */
function isAcceptableDuringOutage(answer: Answer): boolean {
  if (typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300) return true;
  // DESIGN.md's error shape: the code `unavailable`, and `details` naming the dependency as its path.
  const body = answer.body as { error?: unknown; code?: unknown; details?: Array<{ path?: unknown }> };
  return (
    answer.status === 503 &&
    answer.retryAfter !== null &&
    typeof body?.error === 'string' &&
    body.code === 'unavailable' &&
    body.details?.[0]?.path === 'database'
  );
}

/** Calls GET /monitor/ and GET /runs/ back to back until `untilMs`; every answer (or its absence) is kept. */
async function callApiUntil(deployment: FaultDeployment, untilMs: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  const call = async (path: string) => {
    try {
      const answer: ApiAnswer = await deployment.api('GET', path);
      answers.push({
        path,
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        body: answer.body,
      });
    } catch (error) {
      answers.push({ path, status: 'no answer', retryAfter: null, body: String(error) });
    }
  };
  while (Date.now() < untilMs) {
    await Promise.all([call('/monitor/'), call('/runs/'), sleep(250)]);
  }
  return answers;
}

describe('PostgreSQL stopped with -m immediate for 20 s under API traffic', () => {
  let target: CountingTarget;
  let deployment: FaultDeployment;
  beforeAll(async () => {
    target = await startCountingTarget();
    deployment = await startFaultDeployment(['hub', 'scheduler', 'worker']);
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
    await target?.close();
  }, 60_000);

  it('keeps every process up, answers 503 with Retry-After (never 500), and records every slot once', async () => {
    const ids = Array.from({ length: MONITORS }, (_, i) => `pg-outage-${i}`);
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids);
    const fromMs = Date.now();
    await sleep(15_000);

    await deployment.bed.postgres.stopImmediately();
    const outageEnds = Date.now() + OUTAGE_MS;
    const readyDuringOutage = fetch(`${deployment.hub().url}/readyz`, { signal: AbortSignal.timeout(10_000) })
      .then((response) => response.status)
      .catch((error: unknown) => String(error));
    const answers = await callApiUntil(deployment, outageEnds);
    const readyz = await readyDuringOutage;
    const exitedDuringOutage = deployment.exited();
    await deployment.bed.postgres.start();
    const toMs = Date.now() + AFTER_OUTAGE_MS;
    await sleep(AFTER_OUTAGE_MS);

    // Slots of the outage may be recorded late (retried once PostgreSQL is back): wait for them, bounded.
    const schedules = ids.map((id) => scheduleOf(id));
    const count = async () =>
      countSlots({ schedules, fromMs, toMs, runs: await deployment.runs(), hits: target.hits });
    let counts: SlotCounts = await count();
    const settleEnds = Date.now() + SETTLE_MS;
    while ((counts.missing > 0 || counts.stuck > 0) && Date.now() < settleEnds) {
      await sleep(2_000);
      counts = await count();
    }

    const worker = deployment.processes.find((p) => p.name === 'worker')!;
    // A worker that died has no metrics to read; its exit is reported below.
    const workerScrape = await fetch(worker.metricsUrl)
      .then((response) => response.text())
      .catch(() => '');
    const dropped = samplesOf(workerScrape, 'meerkat_runs_dropped_total').reduce(
      (sum, s) => sum + s.value,
      0,
    );
    const unacceptable = answers.filter((answer) => !isAcceptableDuringOutage(answer));
    const statuses = answers.reduce<Record<string, number>>((tally, answer) => {
      tally[String(answer.status)] = (tally[String(answer.status)] ?? 0) + 1;
      return tally;
    }, {});
    console.log(formatCounts('PostgreSQL stopped -m immediate for 20 s', counts));
    console.log(`[faults]   API answers during the outage by status: ${JSON.stringify(statuses)}`);
    console.log(`[faults]   missing slots, e.g.: ${counts.missingExamples.join(', ') || 'none'}`);
    console.log(`[faults]   the worker's meerkat_runs_dropped_total: ${dropped}`);

    expect(exitedDuringOutage, 'processes that exited during the outage').toEqual([]);
    expect(deployment.exited(), 'processes that exited').toEqual([]);
    expect(statuses['503'] ?? 0, 'the outage was seen by the API').toBeGreaterThan(0);
    expect(unacceptable.slice(0, 3), `${unacceptable.length} unacceptable answers`).toEqual([]);
    expect(readyz, '/readyz while PostgreSQL is down').toBe(503);
    expect(counts).toMatchObject({ missing: 0, duplicated: 0, stuck: 0, falseFailures: 0 });
    expect(counts.expected).toBeGreaterThanOrEqual(MONITORS * 5);
  }, 300_000);
});
