// A hub that accepts connections and never answers (found in issue #18: a change stayed unsynced for 5 minutes
// with Synced=True): every call of the operator's hub client fails after its timeout, as an unreachable hub.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { describeHubFailure, isHubRejection } from '../../operator/src/hub-availability.js';

const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('error', () => undefined);
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('the hub client with a timeout', () => {
  it('gives up on a hub that never answers, and the operator counts it as unreachable', async () => {
    const hub = createHubClient(url, 'mk_test', { timeoutMs: 300 });
    const failure = await hub.getMonitor('checkout').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).name).toBe('TimeoutError');
    expect(isHubRejection(failure)).toBe(false);
    expect(describeHubFailure(failure)).toBe('the hub did not answer in time');
    expect(sockets.size).toBeGreaterThan(0);
  });
});
