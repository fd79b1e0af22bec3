// A loopback TCP proxy in front of a test hub that a test can take down and bring back on the same port, as a
// hub upgrade does to the operator: while down, connections are refused and open ones are cut.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface HubOutageProxy {
  /** The hub's URL through the proxy. */
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startHubOutageProxy(hubUrl: string): Promise<HubOutageProxy> {
  const target = new URL(hubUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        port = (next.address() as { port: number }).port;
        server = next;
        resolve();
      });
    });

  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });

  await listen();
  return { url: `http://127.0.0.1:${port}`, down, up: listen, close: down };
}
