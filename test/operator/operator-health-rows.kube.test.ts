// A health change picked up by the fleet sweep costs no per-Monitor metrics read (ADR 0073), on a real
// kube-apiserver with a real hub: the sweep's rows of `GET /metrics/monitors` name each monitor's latest run, so
// the pass writes the status from its row. Every request the operator sends the hub is counted by route at fetch;
// only a failed latest run is read itself, once, for its first error.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordKnownRun } from '../metrics/metrics-fixtures.js';
import { eventually } from '../kube/test-cluster.js';
import { monitorsIn, sampleNamed, setUpOperatorTests, untilSynced } from './operator-fixture.js';

const setup = setUpOperatorTests('operator-health-rows');

/** The hub requests made through fetch, as `METHOD /path` with each id replaced by `{id}`. */
function hubRoutes() {
  const routes: string[] = [];
  const origin = new URL(setup.hub.url).origin;
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.origin === origin) {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const path = url.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|run_[A-Za-z0-9_-]+/g, '{id}');
      routes.push(`${method} ${path}`);
    }
    return realFetch(input, init);
  });
  return routes;
}

const count = (routes: string[], route: string) => routes.filter((each) => each === route).length;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('health from the sweep’s rows', () => {
  it(
    'a passing and a failing run reach the status with no GET /metrics/monitors/{id}',
    { timeout: 180_000 },
    async () => {
      const routes = hubRoutes();
      const namespace = setup.namespace.name;
      setup.startTestOperator({ refreshMs: 500, resyncMs: 600_000 });
      const monitors = monitorsIn(namespace);
      await monitors.create(sampleNamed(namespace, 'passes'));
      await monitors.create(sampleNamed(namespace, 'fails'));
      const passes = (await untilSynced(namespace, 'passes')).metadata.uid;
      const fails = (await untilSynced(namespace, 'fails')).metadata.uid;
      // The sweep lists both, without runs: health unknown, written from the rows.
      for (const name of ['passes', 'fails'])
        await eventually(
          `${name} health unknown`,
          async () => (await monitors.get(name)).status?.health === 'unknown',
        );

      const now = new Date();
      const passed = await recordKnownRun(setup.hub.db, 'acme', passes, {
        at: now,
        success: true,
        durationMs: 120,
      });
      const failed = await recordKnownRun(setup.hub.db, 'acme', fails, {
        at: now,
        success: false,
        durationMs: 80,
      });

      const healthy = await eventually('passes healthy', async () => {
        const resource = await monitors.get('passes');
        return resource.status?.health === 'healthy' ? resource : undefined;
      });
      expect(healthy.status).toMatchObject({ lastRunId: passed, lastRunResult: 'Passed' });
      const failing = await eventually('fails failing, with its error', async () => {
        const resource = await monitors.get('fails');
        return resource.status?.health === 'failing' && resource.status.lastRunError ? resource : undefined;
      });
      expect(failing.status).toMatchObject({
        lastRunId: failed,
        lastRunResult: 'Failed',
        lastRunError: 'get: runner failure',
      });
      expect(failing.status?.lastRunUrl).toContain(failed);

      expect(count(routes, 'GET /metrics/monitors')).toBeGreaterThan(0);
      expect(count(routes, 'GET /metrics/monitors/{id}')).toBe(0);
      // The failed run, once, for its first error; the passing one is never read.
      expect(count(routes, 'GET /runs/{id}')).toBe(1);
    },
  );
});
