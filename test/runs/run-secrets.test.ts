import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../hub/src/server/start-worker.js';
import { capturedLog } from '../harness/captured-log.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { testComponents, testRunQueue, workerSettings } from './run-fixtures.js';

const secretValue = 'tok-9f3b2c71-never-print-me';

/** Echoes the Authorization header back in the body and in a header: the worst case for leaking. */
async function startEchoTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    res
      .writeHead(500, { 'content-type': 'application/json', 'x-echo': auth })
      .end(JSON.stringify({ youSent: auth }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a run that uses a secret', () => {
  let hub: TestHub;
  let target: { url: string; close(): Promise<void> };
  const capture = capturedLog();

  beforeAll(async () => {
    target = await startEchoTarget();
    hub = await startTestHub({ runQueue: testRunQueue(), log: capture.log });
  });
  afterAll(async () => {
    await hub.close();
    await target.close();
  });

  it('leaves no trace of the value in the run, its errors or any log line', async () => {
    expect(
      (
        await hub.request('PUT', '/secrets/api_token', {
          body: { value: secretValue, environment: 'production' },
        })
      ).status,
    ).toBe(201);
    const monitor = {
      project: 'shop',
      name: 'echo',
      version: '1.0',
      environment: 'production',
      frequency: { every: 1, unit: 'HOUR' },
      nodes: [
        {
          id: 'call',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: target.url,
          path: '/whoami',
          headers: { Authorization: { $secret: { ref: 'api_token' } } },
          response_format: 'JSON',
        },
        {
          id: 'check',
          type: 'ASSERTION',
          assertions: [
            {
              nodeId: 'call',
              subject: 'status',
              predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
            },
            {
              nodeId: 'call',
              subject: 'headers',
              headerName: 'x-echo',
              predicate: { type: 'binary', operator: 'EQUAL', expected: 'something else' },
            },
            {
              nodeId: 'call',
              subject: 'body',
              path: '$.youSent',
              predicate: { type: 'unary', operator: 'IS_EMPTY' },
            },
          ],
        },
      ],
      edges: [{ from: 'call', to: 'check' }],
    };
    await hub.request('PUT', '/monitor/echo', { body: monitor });
    const queue = testRunQueue();
    const worker = startWorker({
      settings: workerSettings(),
      log: capture.log,
      components: testComponents(hub.db, queue, hub.secrets),
      locations: ['default'],
      concurrency: 1,
    });
    try {
      const { data } = (await (
        await hub.request('POST', '/runs/trigger/echo', { body: { environment: 'production' } })
      ).json()) as { data: { id: string } };
      await queue.enqueue({ organizationId: 'acme', monitorId: 'echo', location: 'default', runId: data.id });
      const run = await eventually(async () => {
        const answer = (await (await hub.request('GET', `/runs/${data.id}`)).json()) as {
          data: { status: string };
        };
        return answer.data.status === 'failed' ? answer.data : undefined;
      });
      const stored = JSON.stringify(
        await hub.db.selectFrom('runs').selectAll().where('id', '=', data.id).execute(),
      );
      expect(JSON.stringify(run)).toContain('[secret]');
      expect(JSON.stringify(run)).not.toContain(secretValue);
      expect(stored).not.toContain(secretValue);
      expect(capture.lines.length).toBeGreaterThan(0);
      expect(capture.text()).not.toContain(secretValue);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
