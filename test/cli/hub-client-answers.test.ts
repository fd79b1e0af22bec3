import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient, HubAnswerError } from '../../hub/src/client/hub-client.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

/**
 * A loopback proxy in front of a real hub that passes every answer on, but for `GET /runs/...` answers, which it
 * rewrites with `rewrite` (a hub of another version, a proxy that mangles bodies).
 */
async function startRewritingProxy(hubUrl: string, rewrite: (body: string) => string) {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(Buffer.from(chunk as Uint8Array));
      const upstream = await fetch(new URL(request.url ?? '/', hubUrl), {
        method: request.method ?? 'GET',
        headers: { authorization: request.headers.authorization ?? '', 'content-type': 'application/json' },
        body: chunks.length === 0 ? null : Buffer.concat(chunks),
      });
      const body = await upstream.text();
      const mangle = request.method === 'GET' && request.url?.startsWith('/runs/') === true;
      response.writeHead(upstream.status, { 'content-type': 'application/json' });
      response.end(mangle ? rewrite(body) : body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// The CLI, the operator and runner Jobs act on what the hub answers: a 2xx that is not what the contract says
// must fail as a typed error naming the field, never flow on as a value of the wrong type (ADR 0042).
describe('the hub client reads answers by the contract’s schemas', () => {
  let hub: TestHub;
  let runId: string;
  let rewrite: (body: string) => string = (body) => body;
  let proxy: Awaited<ReturnType<typeof startRewritingProxy>>;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    proxy = await startRewritingProxy(hub.url, (body) => rewrite(body));
    const put = await hub.request('PUT', '/monitor/answers', {
      as: 'acmeEditor',
      body: monitorDefinition({ name: 'answers' }),
    });
    expect(put.status).toBe(201);
    runId = (
      await createHubClient(hub.url, hub.keys.acmeEditor).triggerRun('answers', { environment: 'default' })
    ).id;
  });
  afterAll(async () => {
    await proxy.close();
    await hub.close();
  });

  it('takes an answer that matches', async () => {
    rewrite = (body) => body;
    const run = await createHubClient(proxy.url, hub.keys.acmeEditor).getRun(runId);
    expect(run).toMatchObject({ id: runId, monitorId: 'answers' });
  });

  it('refuses a field of the wrong shape, naming it', async () => {
    rewrite = (body) => body.replace(/"status":"[a-z]+"/, '"status":"exploded"');
    const failure = await createHubClient(proxy.url, hub.keys.acmeEditor)
      .getRun(runId)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HubAnswerError);
    expect(failure).toMatchObject({ code: 'hub_answer_mismatch', method: 'GET', path: `/runs/${runId}` });
    expect((failure as HubAnswerError).issues.map((issue) => issue.path)).toEqual(['data.status']);
  });

  it('refuses a body that is not JSON', async () => {
    rewrite = (body) => body.slice(0, body.length / 2);
    await expect(createHubClient(proxy.url, hub.keys.acmeEditor).getRun(runId)).rejects.toMatchObject({
      code: 'hub_answer_mismatch',
      issues: [{ path: '', message: 'the body is not JSON' }],
    });
  });

  it('refuses a stored document the contract does not describe, as the real hub answers it', async () => {
    // An older document answered as stored (GET /monitor/{id} upgrades only with version=latest) lacks fields.
    await hub.db
      .insertInto('monitors')
      .values({
        organization_id: 'acme',
        id: 'older',
        project: 'shop',
        environment: 'default',
        name: 'older',
        schema_version: '0.9',
        definition: jsonColumn({ project: 'shop', name: 'older', version: '0.9', intervalMinutes: 7 }),
        updated_at: new Date(),
      })
      .execute();
    const failure = await createHubClient(hub.url, hub.keys.acmeEditor)
      .getMonitor('older')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HubAnswerError);
    expect((failure as HubAnswerError).issues.map((issue) => issue.path)).toContain('data.frequency');
  });
});
