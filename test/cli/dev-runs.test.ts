import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startMeerkatDev, type MeerkatDev } from '../harness/processes.js';
import { monitorAgainst, startTarget, type Target } from '../runs/run-fixtures.js';

describe('meerkat dev without Redis', () => {
  let target: Target;
  let dev: MeerkatDev;
  let base: string;
  let key: string;

  beforeAll(async () => {
    target = await startTarget();
    dev = await startMeerkatDev();
    ({ key, api: base } = dev);
  });
  afterAll(async () => {
    await dev.stop();
    await target.close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return (await response.json()) as { data: { id: string; status: string; success: boolean | null } };
  };

  it('starts with its heap budget on, at 110 MiB, and exposes its collections', async () => {
    const scrape = await (await fetch(dev.metricsUrl)).text();
    expect(scrape).toMatch(/^meerkat_heap_budget_collections_total\{process="dev"\} \d+$/m);
    expect(scrape).toMatch(/^meerkat_heap_budget_collection_seconds_total\{process="dev"\} [\d.e-]+$/m);
    const budget = Number(/^meerkat_heap_budget_bytes\{process="dev"\} (\d+)$/m.exec(scrape)?.[1]);
    expect(budget).toBeGreaterThanOrEqual(110 * 1024 * 1024);
  });

  it('executes a triggered run on its in-process queue', async () => {
    await call('PUT', '/monitor/local', monitorAgainst(target, { name: 'local' }));
    const { data } = await call('POST', '/runs/trigger/local', { environment: 'production' });
    const done = await eventually(async () => {
      const run = (await call('GET', `/runs/${data.id}`)).data;
      return run.status === 'completed' ? run : undefined;
    });
    expect(done.success).toBe(true);
    expect(target.hits.some((hit) => hit.path === '/ok')).toBe(true);
  });

  it('schedules a monitor on its frequency', async () => {
    await call(
      'PUT',
      '/monitor/ticking',
      monitorAgainst(target, { name: 'ticking', frequency: { every: 1 / 6, unit: 'MINUTE' } }),
    );
    const list = await eventually(async () => {
      const answer = (await (
        await fetch(`${base}/runs/?monitorId=ticking`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as {
        data: Array<{ status: string; triggeredBy: string }>;
      };
      return answer.data.some((r) => r.status === 'completed') ? answer.data : undefined;
    }, 25_000);
    expect(list.every((r) => r.triggeredBy === 'schedule')).toBe(true);
  });

  it('records a heartbeat ping, then its missed period from the hub process itself', async () => {
    await call('PUT', '/monitor/pinged', {
      project: 'jobs',
      name: 'pinged',
      version: '1.0',
      frequency: { every: 1 / 6, unit: 'MINUTE' },
      heartbeat: { grace_seconds: 0 },
    });
    const minted = (await call('POST', '/monitor/pinged/heartbeat-token')) as unknown as {
      data: { pingPath: string };
    };
    expect((await fetch(base + minted.data.pingPath, { method: 'POST', body: 'nightly ok' })).status).toBe(
      200,
    );
    const runs = await eventually(async () => {
      const answer = (await (
        await fetch(`${base}/runs/?monitorId=pinged`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { data: Array<{ status: string; location: string; errors: string[] }> };
      return answer.data.some((r) => r.status === 'failed') ? answer.data : undefined;
    }, 30_000);
    expect(runs.every((r) => r.location === 'heartbeat')).toBe(true);
    expect(runs.some((r) => r.status === 'completed')).toBe(true);
    expect(runs.find((r) => r.status === 'failed')?.errors[0]).toMatch(
      /^no ping within the period \(10 s\) and grace \(0 s\): last ping at \d{4}-/,
    );
  }, 45_000);
});
