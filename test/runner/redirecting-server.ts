// A loopback server for the redirect and egress tests: it records every request it receives, and its routes
// answer redirects. Two of them on different ports are two origins.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trackedCloser } from './broken-targets.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface RedirectingServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * Routes: `/redirect?status=S&to=URL` answers S with Location URL; `/loop/N` redirects to `/loop/N+1`;
 * anything else answers 200 with `{}`.
 */
export async function startRedirectingServer(host = '127.0.0.1'): Promise<RedirectingServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://server');
      received.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body });
      const loop = /^\/loop\/(\d+)$/.exec(url.pathname);
      if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status')), {
          location: url.searchParams.get('to') ?? '/',
        });
        res.end('moved');
      } else if (loop) {
        res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
  });
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, received, close };
}

/** `/redirect` of `from`, answering `status` towards `to`. */
export const redirectPath = (status: number, to: string) =>
  `/redirect?status=${status}&to=${encodeURIComponent(to)}`;
