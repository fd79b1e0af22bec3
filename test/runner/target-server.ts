// A local HTTP target for the runner tests, on 127.0.0.1 and a free port. It records what it received and,
// for /slow, when each request started and ended by its own clock, so tests can check overlap and order
// without wall-clock thresholds.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trackedCloser } from './broken-targets.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TargetServer {
  url: string;
  received: ReceivedRequest[];
  /** Per /slow?label=: server-side start and end (performance.now()) of the request. */
  spans: Map<string, { start: number; end: number }>;
  close(): Promise<void>;
}

export const JSON_DOCUMENT = {
  status: { indicator: 'none', description: 'All Systems Operational' },
  items: [
    { id: 1, name: 'anvil' },
    { id: 2, name: 'rocket' },
  ],
  count: '42',
  flag: true,
  flagText: 'false',
  empty: '',
  emptyList: [],
  nothing: null,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** The secrets the login routes expect, as `meerkat test` gets them (config/samples/monitors/login-flow.yaml). */
export const LOGIN_SECRETS = {
  shop_client: { id: 'web', secret: 'cs-4d2f9a' },
  monitor_password: 'hunter2-correct-horse',
  monitor_api_token: 'Bearer t0ken-8c1e77',
};

/** POST /api/session and GET /api/account of the login-flow sample, checking the secrets they receive. */
function routeLogin(req: IncomingMessage, res: ServerResponse, path: string, body: string): boolean {
  if (path === '/api/session' && req.method === 'POST') {
    const password = (JSON.parse(body || '{}') as { password?: string }).password;
    const known =
      password === LOGIN_SECRETS.monitor_password &&
      req.headers['x-client-secret'] === LOGIN_SECRETS.shop_client.secret;
    if (known) sendJson(res, 201, { session: 'created' }, { 'set-cookie': 'session=s1; HttpOnly' });
    else sendJson(res, 401, { error: 'unknown client or password' });
    return true;
  }
  if (path === '/api/account') {
    if (req.headers.authorization === LOGIN_SECRETS.monitor_api_token)
      sendJson(res, 200, { email: 'synthetic-monitor@shop.example.com' });
    else sendJson(res, 401, { error: 'bad token' });
    return true;
  }
  return false;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  target: TargetServer,
  body: string,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://target');
  const path = url.pathname;
  if (path.endsWith('/echo'))
    return sendJson(res, 200, { method: req.method, url: req.url, headers: req.headers, body });
  if (routeLogin(req, res, path, body)) return;
  if (path.startsWith('/status/')) return sendJson(res, Number(path.slice('/status/'.length)), { ok: false });
  switch (path) {
    case '/json':
      return sendJson(res, 200, JSON_DOCUMENT, { 'x-count': '42', 'x-empty': '', 'x-flag': 'true' });
    case '/xml':
      res.writeHead(200, { 'content-type': 'application/xml' });
      return void res.end('<health><status>up</status></health>');
    case '/empty':
      res.writeHead(204);
      return void res.end();
    case '/malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"status": "up",');
    case '/redirect':
      res.writeHead(302, { location: '/json' });
      return void res.end();
    case '/slow': {
      const label = url.searchParams.get('label') ?? 'slow';
      const start = performance.now();
      await sleep(Number(url.searchParams.get('ms') ?? 200));
      target.spans.set(label, { start, end: performance.now() });
      return sendJson(res, 200, { label });
    }
    case '/hang':
      return; // never answers; close() destroys the socket
    case '/big':
    case '/big-declared': {
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const total = Number(url.searchParams.get('bytes') ?? 1024 * 1024);
      res.writeHead(200, path === '/big-declared' ? { 'content-length': String(total) } : {});
      for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
        if (!res.write(chunk.subarray(0, Math.min(chunk.length, total - sent)))) await drainedOrClosed(res);
      }
      return void res.end();
    }
    default:
      return sendJson(res, 404, { error: 'no such route' });
  }
}

export async function startTargetServer(): Promise<TargetServer> {
  const target: TargetServer = {
    url: '',
    received: [],
    spans: new Map(),
    close: () => closeServer(),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      target.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, target, body).catch((error: unknown) => res.destroy(error as Error));
    });
  });
  const closeServer = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return target;
}
