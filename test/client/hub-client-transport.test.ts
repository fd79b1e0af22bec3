// The hub client against a real server that drops a kept-alive connection as the client sends on it again: the
// race of a socket the server closes idle just as the client reuses it (docs/operations.md, "The hub client and
// dropped connections").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHubClient, HubRequestError, HubTransportError } from '../../hub/src/client/hub-client.js';

const API_KEY = 'mk_test_secret_key_never_in_errors';

interface Drop {
  /** `fin`: the server closes the socket (undici: "other side closed"); `rst`: it resets it (ECONNRESET). */
  how: 'fin' | 'rst';
  /** How many reused connections are dropped before the server answers again. */
  times: number;
}

/** A server that answers every request, except one that arrives on a reused connection while `drop` says so. */
async function startServer(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = [];
  const requestsOn = new WeakMap<Socket, number>();
  const state: { drop: Drop | undefined } = { drop: undefined };
  const server = createServer((req, res) => {
    const count = (requestsOn.get(req.socket) ?? 0) + 1;
    requestsOn.set(req.socket, count);
    seen.push(`${req.method} ${req.url}`);
    const drop = state.drop;
    if (count > 1 && drop !== undefined && drop.times > 0) {
      drop.times -= 1;
      if (drop.how === 'rst') req.socket.resetAndDestroy();
      else req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answerHub(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'DELETE') {
    res.writeHead(204).end();
  } else if (req.method === 'POST' && req.url === '/monitor/bulk') {
    const body = {
      data: [
        { id: 'a', status: 422, error: { error: 'refused by the test server', code: 'validation_failed' } },
      ],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  } else {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
  }
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * Makes calls until the server has dropped `times` reused connections under them (undici takes a new connection
 * when the last one is not yet marked idle, so not every call reuses one), at most 50; each call's outcome.
 */
async function callUntilDropped<T>(
  server: Awaited<ReturnType<typeof startServer>>,
  drop: Drop,
  call: () => Promise<T>,
): Promise<unknown[]> {
  server.state.drop = drop;
  const outcomes: unknown[] = [];
  for (let calls = 0; drop.times > 0 && calls < 50; calls += 1)
    outcomes.push(await call().catch((error: unknown) => error));
  expect(drop.times).toBe(0);
  server.state.drop = undefined;
  return outcomes;
}

const count = (seen: readonly string[], request: string) => seen.filter((r) => r === request).length;

describe('the hub client over a connection the server drops as it is reused', () => {
  for (const how of ['fin', 'rst'] as const) {
    it(`sends a GET, DELETE and a bulk PUT again and gets their answers (${how})`, async () => {
      const server = await startServer(answerHub);
      servers.push(server);
      const hub = createHubClient(server.url, API_KEY);
      await hub.deleteMonitor('first');

      const gets = await callUntilDropped(server, { how, times: 1 }, () => hub.getMonitor('m1'));
      expect(gets.every((outcome) => outcome === undefined)).toBe(true);
      const deletes = await callUntilDropped(server, { how, times: 2 }, () => hub.deleteMonitor('m2'));
      expect(deletes.every((outcome) => outcome === undefined)).toBe(true);
      const bulks = await callUntilDropped(server, { how, times: 1 }, () =>
        hub.putMonitors([{ id: 'a', definition: {} as never }]),
      );
      for (const outcome of bulks) expect((outcome as unknown[])[0]).toBeInstanceOf(HubRequestError);

      // Each dropped request reached the server and was sent again: one request more than calls per drop.
      expect(count(server.seen, 'GET /monitor/m1')).toBe(gets.length + 1);
      expect(count(server.seen, 'DELETE /monitor/m2')).toBe(deletes.length + 2);
      expect(count(server.seen, 'POST /monitor/bulk')).toBe(bulks.length + 1);
    });
  }

  it('does not send again a POST that creates, and says why without the key', async () => {
    const server = await startServer(answerHub);
    servers.push(server);
    const hub = createHubClient(server.url, API_KEY);
    await hub.deleteMonitor('first');

    const outcomes = await callUntilDropped(server, { how: 'rst', times: 1 }, () =>
      hub.triggerRun('m1', { environment: 'production' }),
    );

    // The calls the server answered got its 404; the one whose connection it reset failed, and was sent once.
    const failures = outcomes.filter((outcome) => outcome instanceof HubTransportError);
    expect(failures).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome instanceof HubRequestError)).toHaveLength(
      outcomes.length - 1,
    );
    const message = String((failures[0] as Error).message);
    expect(message).toContain('POST /runs/trigger/m1');
    expect(message).toContain('ECONNRESET');
    expect(message).toContain('not sent again');
    expect(message).not.toContain(API_KEY);
    expect(JSON.stringify(failures[0])).not.toContain(API_KEY);
    expect(count(server.seen, 'POST /runs/trigger/m1')).toBe(outcomes.length);
  });

  it('gives up on a repeatable request after a bounded number of attempts, naming them', async () => {
    const server = await startServer(answerHub);
    servers.push(server);
    const hub = createHubClient(server.url, API_KEY);
    // Every request on a new connection is the first of its socket: drop them all by closing at connect.
    const failing = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise<void>((resolve) => failing.close(() => resolve())) });
    const failingHub = createHubClient(
      `http://127.0.0.1:${(failing.address() as AddressInfo).port}`,
      API_KEY,
    );

    const failure = await failingHub.getMonitor('m1').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(HubTransportError);
    expect((failure as HubTransportError).attempts).toBe(5);
    expect((failure as Error).message).toContain('after 5 attempts');
    expect(await hub.getMonitor('still-answering')).toBeUndefined();
  });

  it('sends any request again, a POST that creates too, while the hub refuses connections', async () => {
    // A port nothing listens on until the server starts a moment after the first attempt.
    const probe = await startServer(answerHub);
    const { port } = probe;
    await probe.close();
    const hub = createHubClient(`http://127.0.0.1:${port}`, API_KEY);
    const seen: string[] = [];
    const late = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no monitor' }));
    });
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          late.closeAllConnections();
          late.close(() => resolve());
        }),
    });
    setTimeout(() => late.listen(port, '127.0.0.1'), 20);

    const failure = await hub
      .triggerRun('m1', { environment: 'production' })
      .catch((error: unknown) => error);

    // Refused connections carried nothing: the POST reached the hub once, and its answer is the hub's.
    expect(failure).toBeInstanceOf(HubRequestError);
    expect((failure as HubRequestError).status).toBe(404);
    expect(seen).toEqual(['POST /runs/trigger/m1']);
  });
});
