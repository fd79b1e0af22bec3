// The hub API's server keeps an idle connection longer than its clients do, so a client never sends on a connection
// the hub has just closed for idleness (docs/operations.md, "The hub client and dropped connections").
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { API_KEEP_ALIVE_MS, keepConnectionsAlive } from '../../hub/src/server/serve-api.js';

it('advertises a keep-alive past the clients and the load balancers, and waits for headers longer still', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  keepConnectionsAlive(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await response.text();
    // Node 20's fetch keeps the connection the advertised timeout less 2 s; a proxy's 60 s closes before the hub.
    expect(response.headers.get('keep-alive')).toBe(`timeout=${API_KEEP_ALIVE_MS / 1000}`);
    expect(API_KEEP_ALIVE_MS).toBeGreaterThan(60_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
