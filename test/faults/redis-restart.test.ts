import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  TEN_SECONDS_MS,
  createMonitorsAndAwaitFirstRuns,
  startFaultDeployment,
  type FaultDeployment,
} from './fault-deployment.js';
import { duplicatedSlots, formatCounts, isFalseFailure } from './slot-accounting.js';

const MONITORS = 20;
/** Redis stays away until every monitor has gone without a run for 2x its frequency, so the gap must show. */
const OUTAGE_MS = 2 * TEN_SECONDS_MS + 5_000;
const BACK_WITHIN_MS = 15_000;

describe('Redis killed with kill -9 and restarted empty', () => {
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

  it('shows the gap while Redis is away, refuses triggers fast, and runs every monitor within 15 s of its return', async () => {
    const ids = Array.from({ length: MONITORS }, (_, i) => `redis-gap-${i}`);
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids);

    await deployment.bed.redis.kill();
    const killedAt = Date.now();
    const trigger = await deployment
      .api('POST', `/runs/trigger/${ids[0]}`, { environment: 'production' }, 10_000)
      .catch((error: unknown) => ({ status: `no answer within 10 s (${String(error)})`, body: undefined }));
    const readyz = await fetch(`${deployment.hub().url}/readyz`, { signal: AbortSignal.timeout(10_000) })
      .then((response) => response.status)
      .catch((error: unknown) => String(error));
    await sleep(Math.max(0, killedAt + OUTAGE_MS - Date.now()));
    // Every monitor has now gone more than 2x its frequency without a run: the gap must be visible.
    // A hub that died answers nothing: noRecentRuns and the metrics stay undefined, and its exit is reported.
    const summary = await deployment
      .api('GET', '/metrics/summary?period=1h')
      .catch(() => ({ body: undefined }));
    const noRecentRuns = (summary.body as { data?: { monitors?: { noRecentRuns?: number } } } | undefined)
      ?.data?.monitors?.noRecentRuns;
    const scrape = await fetch(deployment.hub().metricsUrl)
      .then((response) => response.text())
      .catch(() => '');
    const overdue = samplesOf(scrape, 'meerkat_monitors_overdue').reduce((sum, s) => sum + s.value, 0);
    const redisUp = samplesOf(scrape, 'meerkat_dependency_up').find((s) => s.labels.dependency === 'redis');

    await deployment.bed.redis.start();
    const backAt = Date.now();
    const firstRunAfter = new Map<string, number>();
    const pollEnds = backAt + 2 * BACK_WITHIN_MS;
    while (firstRunAfter.size < MONITORS && Date.now() < pollEnds) {
      for (const hit of target.hits) {
        if (hit.arrivedAt >= backAt && !firstRunAfter.has(hit.monitorId))
          firstRunAfter.set(hit.monitorId, hit.arrivedAt - backAt);
      }
      await sleep(250);
    }
    const slowest = Math.max(...ids.map((id) => firstRunAfter.get(id) ?? Number.POSITIVE_INFINITY));
    const runs = await deployment.runs();
    const counts = {
      expected: MONITORS,
      recorded: ids.filter((id) => (firstRunAfter.get(id) ?? Infinity) <= BACK_WITHIN_MS).length,
      missing: ids.filter((id) => (firstRunAfter.get(id) ?? Infinity) > BACK_WITHIN_MS).length,
      duplicated: duplicatedSlots(runs),
      stuck: 0,
      falseFailures: runs.filter((run) => isFalseFailure(run, target.hits)).length,
    };
    console.log(formatCounts('Redis killed and restarted empty (monitors run again within 15 s)', counts));
    console.log(
      `[faults]   slowest monitor ran ${slowest} ms after Redis came back; during the gap: noRecentRuns ` +
        `${noRecentRuns}, meerkat_monitors_overdue ${overdue}, trigger answered ${trigger.status}` +
        ` in ${'ms' in trigger ? trigger.ms : '-'} ms, /readyz ${readyz}`,
    );

    expect(deployment.exited(), 'processes that exited').toEqual([]);
    expect(trigger.status, 'POST /runs/trigger while Redis is away').toBe(503);
    expect(readyz, '/readyz of the hub while only Redis is away').toBe(200);
    expect(noRecentRuns, "/metrics/summary's noRecentRuns during the gap").toBe(MONITORS);
    expect(overdue, 'meerkat_monitors_overdue during the gap').toBe(MONITORS);
    expect(redisUp?.value, 'meerkat_dependency_up{dependency="redis"} during the gap').toBe(0);
    expect(counts).toMatchObject({ missing: 0, duplicated: 0, falseFailures: 0 });
    expect(slowest).toBeLessThanOrEqual(BACK_WITHIN_MS);
  }, 240_000);
});
