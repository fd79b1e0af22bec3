import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  countingMonitor,
  createMonitorsAndAwaitFirstRuns,
  startFaultDeployment,
  type FaultDeployment,
} from './fault-deployment.js';

/** What docs/operations.md promises: every API route answers within 5 s while a dependency hangs. */
const BOUND_MS = 5_000;
const PAUSE_MS = 12_000;
const MONITORS = 3;

interface Call {
  route: string;
  status: number | string;
  retryAfter: string | null;
  code: unknown;
}

/** A call bounded by BOUND_MS: an answer later than that is recorded as none. */
async function call(
  deployment: FaultDeployment,
  method: string,
  path: string,
  body?: unknown,
): Promise<Call> {
  const route = `${method} ${path}`;
  try {
    const answer = await deployment.api(method, path, body, BOUND_MS);
    const code = (answer.body as { code?: unknown } | undefined)?.code;
    return { route, status: answer.status, retryAfter: answer.headers.get('retry-after'), code };
  } catch (error) {
    return {
      route,
      status: `no answer within ${BOUND_MS} ms (${String(error)})`,
      retryAfter: null,
      code: null,
    };
  }
}

/** Data, or 503 `unavailable` with Retry-After; /readyz answers 503 without Retry-After, as a probe. */
function isBoundedAnswer(answer: Call): boolean {
  if (typeof answer.status !== 'number') return false;
  if (answer.status >= 200 && answer.status < 300) return true;
  if (answer.route.endsWith('/readyz')) return answer.status === 503;
  return answer.status === 503 && answer.code === 'unavailable' && answer.retryAfter !== null;
}

interface Scrape {
  name: string;
  status: number | string;
  databaseUp: number | undefined;
  overdue: number | undefined;
}

/** A scrape of every process's /metrics, bounded by BOUND_MS. */
async function scrapeAll(deployment: FaultDeployment): Promise<Scrape[]> {
  return Promise.all(
    deployment.processes.map(async ({ name, metricsUrl }) => {
      try {
        const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(BOUND_MS) });
        const text = await response.text();
        const up = samplesOf(text, 'meerkat_dependency_up').find((s) => s.labels.dependency === 'database');
        const overdue = samplesOf(text, 'meerkat_monitors_overdue');
        return {
          name,
          status: response.status,
          databaseUp: up?.value,
          overdue: overdue.length === 0 ? undefined : overdue.reduce((sum, s) => sum + s.value, 0),
        };
      } catch (error) {
        return { name, status: String(error), databaseUp: undefined, overdue: undefined };
      }
    }),
  );
}

describe('PostgreSQL and Redis paused (SIGSTOP) and PostgreSQL stopped, under hub, scheduler and worker', () => {
  let target: CountingTarget;
  let deployment: FaultDeployment;
  const ids = Array.from({ length: MONITORS }, (_, i) => `paused-${i}`);
  beforeAll(async () => {
    target = await startCountingTarget();
    deployment = await startFaultDeployment(['hub', 'scheduler', 'worker']);
    await createMonitorsAndAwaitFirstRuns(deployment, target, ids);
  }, 180_000);
  afterAll(async () => {
    if (deployment !== undefined) {
      deployment.bed.postgres.resume();
      deployment.bed.redis.resume();
      await deployment.close();
    }
    await target?.close();
  }, 60_000);

  /** The routes each round calls: reads, a write, a trigger, the readiness probe. */
  const round = (n: number) => [
    call(deployment, 'GET', '/monitor/'),
    call(deployment, 'GET', `/monitor/${ids[0]}`),
    call(deployment, 'GET', '/runs/'),
    call(deployment, 'GET', '/metrics/summary?period=1h'),
    call(deployment, 'PUT', `/monitor/paused-new-${n}`, countingMonitor(target, `paused-new-${n}`)),
    call(deployment, 'POST', `/runs/trigger/${ids[1]}`, { environment: 'production' }),
    call(deployment, 'GET', '/readyz'),
  ];

  it('PostgreSQL paused: every call answers within 5 s, every /metrics 200 with database down', async () => {
    // Open connections in the pools, and a known overdue figure, as a scraping Prometheus would have.
    await Promise.all(Array.from({ length: 10 }, () => call(deployment, 'GET', '/monitor/')));
    const before = await scrapeAll(deployment);

    const inFlight = round(0);
    deployment.bed.postgres.pause();
    const pausedUntil = Date.now() + PAUSE_MS;
    const calls: Array<Promise<Call>> = [...inFlight];
    let scrapes: Scrape[] = [];
    try {
      for (let n = 1; Date.now() < pausedUntil; n += 1) {
        calls.push(...round(n));
        await sleep(3_000);
        if (n === 2) scrapes = await scrapeAll(deployment);
      }
      await Promise.all(calls);
    } finally {
      deployment.bed.postgres.resume();
    }
    const answers = await Promise.all(calls);
    const unbounded = answers.filter((answer) => !isBoundedAnswer(answer));
    console.log(
      `[faults] PostgreSQL paused ${PAUSE_MS / 1000} s: ${answers.length} calls, by status ` +
        JSON.stringify(
          answers.reduce<Record<string, number>>(
            (t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }),
            {},
          ),
        ) +
        `; scrapes ${JSON.stringify(scrapes)}`,
    );

    expect(unbounded.slice(0, 5), `${unbounded.length} calls not answered in bound`).toEqual([]);
    expect(answers.filter((a) => a.status === 503).length, 'the pause was seen by the API').toBeGreaterThan(
      0,
    );
    for (const scrape of scrapes) {
      expect(scrape, `${scrape.name}'s /metrics while PostgreSQL is paused`).toMatchObject({
        status: 200,
        databaseUp: 0,
      });
    }
    const hubBefore = before.find((s) => s.name === 'hub');
    expect(hubBefore?.overdue, 'meerkat_monitors_overdue before the pause').toBeDefined();
    expect(scrapes.find((s) => s.name === 'hub')?.overdue, 'its last value, kept').toBe(hubBefore?.overdue);

    // Back: the API answers with data again.
    let back: Call | undefined;
    for (let tries = 0; tries < 20 && back?.status !== 200; tries += 1) {
      back = await call(deployment, 'GET', '/monitor/');
      if (back.status !== 200) await sleep(1_000);
    }
    expect(back?.status, 'GET /monitor/ once PostgreSQL continues').toBe(200);
    expect(deployment.exited(), 'processes that exited').toEqual([]);
  }, 120_000);

  it('Redis paused: a trigger and /readyz answer within 5 s', async () => {
    deployment.bed.redis.pause();
    let answers: Call[];
    try {
      answers = await Promise.all([
        call(deployment, 'POST', `/runs/trigger/${ids[2]}`, { environment: 'production' }),
        call(deployment, 'GET', '/readyz'),
        call(deployment, 'GET', '/monitor/'),
      ]);
    } finally {
      deployment.bed.redis.resume();
    }
    console.log(`[faults] Redis paused: ${JSON.stringify(answers)}`);
    const unbounded = answers.filter((answer) => !isBoundedAnswer(answer));
    expect(unbounded, 'calls not answered in bound').toEqual([]);
    expect(answers[0]?.status, 'the trigger while Redis is paused').toBe(503);
    expect(answers[1]?.status, '/readyz: Redis does not decide readiness').toBe(200);
    expect(deployment.exited(), 'processes that exited').toEqual([]);
  }, 60_000);

  it('PostgreSQL stopped: every /metrics answers 200, database down, overdue at its last value', async () => {
    const before = await scrapeAll(deployment);
    await deployment.bed.postgres.stopImmediately();
    let during: Scrape[];
    try {
      // Past the overdue gauge's 5 s cache: the scrape has to read, and cannot.
      await sleep(6_000);
      during = await scrapeAll(deployment);
    } finally {
      await deployment.bed.postgres.start();
    }
    console.log(`[faults] PostgreSQL stopped: scrapes ${JSON.stringify(during)}`);
    for (const scrape of during) {
      expect(scrape, `${scrape.name}'s /metrics while PostgreSQL is stopped`).toMatchObject({
        status: 200,
        databaseUp: 0,
      });
    }
    const hubBefore = before.find((s) => s.name === 'hub')?.overdue;
    expect(hubBefore, 'meerkat_monitors_overdue before the stop').toBeDefined();
    expect(during.find((s) => s.name === 'hub')?.overdue, 'its last value, kept').toBe(hubBefore);
    expect(deployment.exited(), 'processes that exited').toEqual([]);
  }, 90_000);
});
