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
});
