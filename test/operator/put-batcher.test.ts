// The operator's PUTs gathered into POST /monitor/bulk (ADR 0054), against the real hub: each caller gets its own
// PUT's outcome, a fleet costs a request per hundred, a lone edit is the PUT it always was.
import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHubClient, HubRequestError, type HubClient } from '../../hub/src/client/hub-client.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { createPutBatcher } from '../../operator/src/put-batcher.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

let hub: TestHub;
let client: HubClient;
beforeAll(async () => {
  hub = await startTestHub();
  client = createHubClient(hub.url, hub.keys.acmeEditor);
});
afterAll(async () => hub.close());

const definition = (name: string, every = 5) =>
  ({
    name,
    project: 'batched',
    version: '1.0',
    frequency: { every, unit: 'MINUTE' },
    nodes: [{ id: 'ping', type: 'WAIT', duration_ms: 10 }],
    edges: [],
  }) as unknown as MonitorDefinition;

/** The requests `action` sends to the hub, as `METHOD path`. */
async function hubRequests(action: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(globalThis, 'fetch');
  try {
    await action();
    return spy.mock.calls.flatMap(([url, init]) => {
      const parsed = new URL(url instanceof Request ? url.url : url);
      return parsed.origin === new URL(hub.url).origin ? [`${init?.method ?? 'GET'} ${parsed.pathname}`] : [];
    });
  } finally {
    spy.mockRestore();
  }
}

describe('the operator’s batched PUTs', () => {
  it('250 Monitors synced at once cost 3 requests, and each is stored as its own PUT would store it', async () => {
    const putMonitor = createPutBatcher(client);
    const ids = Array.from({ length: 250 }, () => randomUUID());
    const requests = await hubRequests(() =>
      Promise.all(ids.map((id, index) => putMonitor(id, definition(`fleet-${index}`)))),
    );
    expect(requests).toEqual(['POST /monitor/bulk', 'POST /monitor/bulk', 'POST /monitor/bulk']);
    const stored = await hub.db.selectFrom('monitors').select('id').where('id', 'in', ids).execute();
    expect(stored).toHaveLength(250);
  });

  it('a refused Monitor fails alone with the hub’s 400 and its fields; the rest of its batch is stored', async () => {
    const putMonitor = createPutBatcher(client);
    const [good, bad] = [randomUUID(), randomUUID()];
    const outcomes = await Promise.allSettled([
      putMonitor(good, definition('refused-neighbour')),
      putMonitor(bad, definition('refused', 0)),
    ]);
    expect(outcomes[0]).toMatchObject({
      status: 'fulfilled',
      value: { id: good, name: 'refused-neighbour' },
    });
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    const error = (outcomes[1] as PromiseRejectedResult).reason as HubRequestError;
    expect(error).toBeInstanceOf(HubRequestError);
    expect(error.status).toBe(400);
    expect(error.details[0]?.path).toMatch(/^frequency/);
  });

  it('a lone edit is one PUT of /monitor/{id}; PUTs asked for meanwhile go together in the next request', async () => {
    const putMonitor = createPutBatcher(client);
    const lone = randomUUID();
    expect(await hubRequests(() => putMonitor(lone, definition('lone')))).toEqual([`PUT /monitor/${lone}`]);
    const later = Array.from({ length: 5 }, () => randomUUID());
    const requests = await hubRequests(async () => {
      const first = putMonitor(lone, definition('lone', 10));
      await new Promise((resolve) => setImmediate(resolve));
      // Asked for while the first is in flight; the same id twice in them: its second PUT waits for a request of its own.
      const meanwhile = later.map((id, index) => putMonitor(id, definition(`later-${index}`)));
      await Promise.all([
        first,
        ...meanwhile,
        putMonitor(lone, definition('lone', 15)),
        putMonitor(lone, definition('lone', 20)),
      ]);
    });
    expect(requests).toEqual([`PUT /monitor/${lone}`, 'POST /monitor/bulk', `PUT /monitor/${lone}`]);
    const row = await hub.db
      .selectFrom('monitors')
      .select('definition')
      .where('id', '=', lone)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row.definition)).toContain('"every":20');
  });

  it('against an older hub without POST /monitor/bulk (404), each Monitor of a batch is put on its own', async () => {
    const older = await startOlderHub(hub.url);
    try {
      let warned = 0;
      const putMonitor = createPutBatcher(
        createHubClient(older.url, hub.keys.acmeEditor),
        () => (warned += 1),
      );
      const first = Array.from({ length: 3 }, () => randomUUID());
      const second = Array.from({ length: 2 }, () => randomUUID());
      const stored = await Promise.all(
        first.map((id, index) => putMonitor(id, definition(`older-${index}`))),
      );
      expect(stored.map((monitor) => (monitor as { id: string }).id)).toEqual(first);
      // The route is asked for once: the next batch goes as PUTs at once.
      await Promise.all(second.map((id, index) => putMonitor(id, definition(`older-later-${index}`))));
      expect(older.requests.filter((line) => line === 'POST /monitor/bulk')).toHaveLength(1);
      expect(older.requests.filter((line) => line.startsWith('PUT /monitor/'))).toHaveLength(5);
      expect(warned).toBe(1);
      const ids = [...first, ...second];
      const rows = await hub.db.selectFrom('monitors').select('id').where('id', 'in', ids).execute();
      expect(rows).toHaveLength(5);
    } finally {
      await older.close();
    }
  });
});

/** The test hub as a hub of before ADR 0054 answers: 404 for `POST /monitor/bulk`, everything else passed on. */
async function startOlderHub(
  hubUrl: string,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const upstream = new URL(hubUrl);
  const requests: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    requests.push(`${incoming.method} ${incoming.url}`);
    if (incoming.url === '/monitor/bulk') {
      outgoing.writeHead(404, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ error: 'not found', code: 'not_found' }));
      incoming.resume();
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
