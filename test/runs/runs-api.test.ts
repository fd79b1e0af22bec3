import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { startWorker } from '../../hub/src/server/start-worker.js';
import {
  monitorAgainst,
  silentLog,
  startTarget,
  testComponents,
  testRunQueue,
  workerSettings,
  type Target,
} from './run-fixtures.js';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';

interface RunAnswer {
  id: string;
  status: string;
  location: string;
  executionGroupId: string;
  success: boolean | null;
  triggeredBy: string;
  environment: string;
  steps: unknown[] | null;
  monitor?: { id: string; name: string; locations: string[] };
}

describe('triggering and listing runs', () => {
  let hub: TestHub;
  let target: Target;
  let queue: RunQueue;
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    target = await startTarget();
    queue = testRunQueue();
    hub = await startTestHub({ runQueue: queue });
    worker = startWorker({
      settings: workerSettings(),
      log: silentLog,
      components: testComponents(hub.db, queue),
      locations: ['default', 'eu-west'],
      concurrency: 4,
    });
    await hub.request('PUT', '/monitor/two-places', {
      body: monitorAgainst(target, { name: 'two', locations: ['default', 'eu-west'] }),
    });
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await hub.close();
    await target.close();
  });

  const getRun = async (id: string) =>
    ((await (await hub.request('GET', `/runs/${id}`)).json()) as { data: RunAnswer }).data;

  it('creates one pending run per location sharing an execution group, and workers complete them', async () => {
    const res = await hub.request('POST', '/runs/trigger/two-places', {
      as: 'acmeEditor',
      body: { environment: 'production' },
    });
    expect(res.status).toBe(201);
    const { data: first } = (await res.json()) as { data: RunAnswer };
    expect(first).toMatchObject({ status: 'pending', triggeredBy: 'manual', environment: 'production' });

    const group = (await (
      await hub.request('GET', `/runs/?executionGroupId=${first.executionGroupId}`)
    ).json()) as { data: RunAnswer[]; total: number };
    expect(group.total).toBe(2);
    expect(group.data.map((r) => r.location).sort()).toEqual(['default', 'eu-west']);
    expect(group.data[0]?.monitor).toMatchObject({
      id: 'two-places',
      name: 'two',
      locations: ['default', 'eu-west'],
    });

    for (const run of group.data) {
      const done = await eventually(async () => {
        const current = await getRun(run.id);
        return current.status === 'completed' ? current : undefined;
      });
      expect(done.success).toBe(true);
      expect(done.steps).toHaveLength(2);
    }
  });

  it('runs only the location asked for, and refuses one the monitor does not run in', async () => {
    const one = await hub.request('POST', '/runs/trigger/two-places', {
      body: { environment: 'production', location: 'eu-west' },
    });
    const { data } = (await one.json()) as { data: RunAnswer };
    const group = (await (
      await hub.request('GET', `/runs/?executionGroupId=${data.executionGroupId}`)
    ).json()) as { total: number };
    expect(group.total).toBe(1);

    const wrong = await hub.request('POST', '/runs/trigger/two-places', {
      body: { environment: 'production', location: 'us-east' },
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ details: [{ path: 'location' }] });
  });

  it('answers an unknown monitor with 404, an empty environment with 400 and a viewer with 403', async () => {
    expect(
      (await hub.request('POST', '/runs/trigger/nope', { body: { environment: 'production' } })).status,
    ).toBe(404);
    const empty = await hub.request('POST', '/runs/trigger/two-places', { body: { environment: '' } });
    expect(await empty.json()).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'environment' }],
    });
    expect(
      (
        await hub.request('POST', '/runs/trigger/two-places', {
          as: 'acmeViewer',
          body: { environment: 'production' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await hub.request('POST', '/runs/trigger/two-places', {
          as: 'globexAdmin',
          body: { environment: 'production' },
        })
      ).status,
    ).toBe(404);
  });

  it('lists runs with filters and paging bounds', async () => {
    const byMonitor = (await (await hub.request('GET', '/runs/?monitorId=two-places&limit=2')).json()) as {
      data: RunAnswer[];
      total: number;
      page: number;
      limit: number;
    };
    expect(byMonitor).toMatchObject({ page: 0, limit: 2 });
    expect(byMonitor.total).toBeGreaterThanOrEqual(3);
    expect(byMonitor.data).toHaveLength(2);
    for (const query of ['limit=0', 'limit=101', 'page=-1', 'status=done']) {
      expect((await hub.request('GET', `/runs/?${query}`)).status).toBe(400);
    }
    const theirs = (await (await hub.request('GET', '/runs/', { as: 'globexAdmin' })).json()) as {
      total: number;
    };
    expect(theirs.total).toBe(0);
  });
});
