// The pieces of bench/front-door.ts that drive a real `meerkat dev`: start it on free loopback ports with its own
// data directory and HOME, wait for /readyz, stop it, fill it with monitors, and count the HTTP requests a client
// makes through a loopback proxy.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface DevHubPlace {
  dataDir: string;
  home: string;
  port: number;
  metricsPort: number;
}

/** What `meerkat dev` is given: nothing of the caller's environment but PATH, so no real HOME or data is touched. */
export function devEnvironment(place: DevHubPlace): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: place.home,
    MEERKAT_DATA_DIR: place.dataDir,
    PORT: String(place.port),
    METRICS_PORT: String(place.metricsPort),
    LOG_LEVEL: 'warn',
    // Creating a thousand monitors must not wait on the per-key rate limit (ADR 0012); no read measured here
    // comes near its burst.
    API_RATE_LIMIT_PER_SECOND: '0',
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status === 200;
  } catch {
    return false;
  }
}

export interface StartedHub {
  child: ChildProcess;
  /** Milliseconds from the spawn until GET /readyz answered 200. */
  readyAfterMs: number;
  url: string;
}

/**
 * Spawns COMMAND ARGS (a `meerkat dev` or an `npm start`) in its own process group and polls /readyz every 20 ms;
 * fails after `limitMs` or when the process exits first.
 */
export async function startDevHub(
  command: string,
  args: string[],
  place: DevHubPlace,
  cwd: string,
  limitMs = 180_000,
): Promise<StartedHub> {
  const url = `http://127.0.0.1:${place.port}`;
  const started = performance.now();
  const child = spawn(command, args, { cwd, env: devEnvironment(place), stdio: 'ignore', detached: true });
  let exited = false;
  child.once('exit', () => (exited = true));
  while (performance.now() - started < limitMs) {
    if (await answers(`${url}/readyz`)) return { child, readyAfterMs: performance.now() - started, url };
    if (exited) throw new Error(`${command} ${args.join(' ')} exited before /readyz answered`);
    await sleep(20);
  }
  await stopDevHub(child);
  throw new Error(`${command} ${args.join(' ')}: /readyz did not answer within ${limitMs} ms`);
}

/** SIGTERM to the whole group (npm, its shell and node), then SIGKILL if it outlives the hub's grace. */
export async function stopDevHub(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 30_000);
  await gone;
  clearTimeout(timer);
}

/** The key `meerkat dev` created in its data directory (server/dev-credentials.ts). */
export function devApiKey(dataDir: string): string {
  return (JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8')) as { apiKey: string })
    .apiKey;
}

/** COUNT heartbeat monitors (no nodes, no location: nothing runs them), ten requests at a time. */
export async function createMonitors(url: string, apiKey: string, count: number): Promise<void> {
  const create = async (index: number) => {
    const response = await fetch(`${url}/monitor/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        project: 'front-door',
        name: `monitor-${String(index).padStart(4, '0')}`,
        version: '1.0',
        frequency: { every: 1, unit: 'DAY' },
        heartbeat: {},
      }),
    });
    if (response.status !== 201) throw new Error(`POST /monitor/ answered ${response.status}`);
  };
  for (let first = 0; first < count; first += 10) {
    const batch = Array.from({ length: Math.min(10, count - first) }, (_, i) => create(first + i));
    await Promise.all(batch);
  }
}

export interface CountingProxy {
  url: string;
  /** The requests forwarded since the last reset, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

/** A loopback HTTP proxy in front of `target` that records every request it forwards. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const requests: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    requests.push(`${incoming.method} ${incoming.url}`);
    const forward = request(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
