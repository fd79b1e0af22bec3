// Targets that fail below HTTP: a TLS server with a self-signed certificate made at test time (test-certificates.ts),
// a TCP server that answers garbage instead of HTTP, and a port nobody listens on.
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { freePort } from '../harness/processes.js';
import { selfSigned } from './test-certificates.js';

export interface RunningTarget {
  url: string;
  close(): Promise<void>;
}

/** Closes the server after destroying its open connections: a failed handshake or a half-closed socket would
 * otherwise keep close() waiting. */
export function trackedCloser(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

export interface SelfSignedTarget extends RunningTarget {
  /** The certificate in PEM, for a runner that should trust it. */
  certificate: string;
}

/** An https server for `localhost` whose certificate no public CA signed. */
export async function startSelfSignedTarget(): Promise<SelfSignedTarget> {
  const { key, cert: certificate } = selfSigned('localhost');
  const server = createHttpsServer({ key, cert: certificate }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"secure":true}');
  });
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://localhost:${port}`, certificate, close };
}

/** A TCP server whose answer is not HTTP at all. */
export async function startGarbageTarget(): Promise<RunningTarget> {
  const server = createTcpServer((socket) => socket.end('this is not HTTP\r\n\r\n'));
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/** A loopback port that was free a moment ago: connecting to it is refused. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
