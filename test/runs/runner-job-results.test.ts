import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { executeRemoteRun } from '../../hub/src/jobs/remote-run.js';
import { capturedLog } from '../harness/captured-log.js';
import { loopbackEgress } from '../harness/egress.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { ESCAPED_ACTUALS, hostileMonitor, startHostileTarget, storedActuals } from './hostile-target.js';

// A runner Job (`meerkat runner --run ID`) reports through `PUT /runs/{id}/result`, as role service.
describe('a runner Job reporting a result the hub cannot take as it is', () => {
  let hub: TestHub;
  let target: { url: string; close(): Promise<void> };
  const capture = capturedLog();

  beforeAll(async () => {
    target = await startHostileTarget();
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub.close();
    await target.close();
  });

  async function runAsJob(monitorId: string, monitor: unknown) {
    expect((await hub.request('PUT', `/monitor/${monitorId}`, { body: monitor })).status).toBe(201);
    const triggered = await hub.request('POST', `/runs/trigger/${monitorId}`, {
      body: { environment: 'production' },
    });
    const runId = ((await triggered.json()) as { data: { id: string } }).data.id;
    await executeRemoteRun({
      hub: createHubClient(hub.url, hub.keys.acmeService),
      runId,
      organizationId: 'acme',
      requestTimeoutMs: 5000,
      runTimeoutMs: 20_000,
      egress: loopbackEgress,
      log: capture.log,
    });
    return hub.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
  }

  it('sends answers holding NUL or a lone surrogate escaped, and the run ends as its assertions say', async () => {
    const row = await runAsJob('hostile', hostileMonitor(target.url));
    expect(row.status).toBe('failed');
    expect(storedActuals(row)).toEqual(ESCAPED_ACTUALS);
  });

  it('reports the run failed, saying why, when the hub refuses the result itself', async () => {
    // 210 failed assertions make 210 error lines, over the 200 a result may carry.
    const failing = Array.from({ length: 70 }, () => ({
      nodeId: 'get',
      subject: 'status',
      predicate: { type: 'binary', operator: 'EQUAL', expected: 201 },
    }));
    const monitor = {
      ...hostileMonitor(target.url),
      name: 'too-many-errors',
      nodes: [
        {
          id: 'get',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: target.url,
          path: '/text-nul',
          response_format: 'XML',
        },
        ...['a', 'b', 'c'].map((id) => ({ id, type: 'ASSERTION', assertions: failing })),
      ],
      edges: ['a', 'b', 'c'].map((to) => ({ from: 'get', to })),
    };
    const row = await runAsJob('too-many-errors', monitor);
    expect(row).toMatchObject({ status: 'failed', success: false, steps: [] });
    expect(row.errors).toHaveLength(1);
    expect(row.errors[0]).toMatch(
      /^run failed by the system: its result could not be stored \(the hub refused it: HTTP 400, .+\)$/,
    );
    expect(capture.text()).toContain('the hub refused the run result');
  });
});
