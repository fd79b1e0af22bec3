// Runs the real `meerkat` CLI (bin/meerkat.js) as a child process, the way a person or a Pod would.
// Free of vitest APIs: global-setup.ts, which runs outside the test workers, uses freePort.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { LOOPBACK_CIDRS } from './egress.js';

export const meerkatBin = fileURLToPath(new URL('../../bin/meerkat.js', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Only what the command needs: the test runner's own DATABASE_URL and friends must not leak in. */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A child's exit code and everything it printed, once it has ended. */
export function finished(child: ChildProcess): Promise<Finished> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command to completion, with `stdin` as its standard input when given. */
export function runMeerkat(
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<Finished> {
  const child = spawn(process.execPath, [meerkatBin, ...args], { env: childEnvironment(env) });
  child.stdin.end(stdin);
  return finished(child);
}

export interface Started {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * With MEERKAT_TEST_LOGS set to a folder, each started process's output is also appended to
 * `<folder>/<command>-<pid>.log`, so a failed fault test's processes can be read after it (docs/testing.md).
 */
function keptOutput(args: readonly string[], child: ChildProcess): ((chunk: Buffer) => void) | undefined {
  const folder = process.env.MEERKAT_TEST_LOGS;
  if (folder === undefined || folder === '') return undefined;
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${args[0] ?? 'meerkat'}-${child.pid ?? 'unknown'}.log`);
  return (chunk) => appendFileSync(file, chunk);
}

/** Starts a long-running command and resolves once its output matches `ready` (or rejects if it exits). */
export function startMeerkat(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<Started> {
  const child = spawn(process.execPath, [meerkatBin, ...args], { env: childEnvironment(env) });
  let output = '';
  const keep = keptOutput(args, child);
  const started: Started = {
    child,
    output: () => output,
    stop: async () => {
      // A child ended by a signal keeps exitCode null: its 'exit' has fired already and would never come again.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`meerkat ${args.join(' ')} was not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      keep?.(chunk);
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(started);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`meerkat ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

export interface MeerkatDev {
  process: Started;
  /** `http://127.0.0.1:<PORT>`. */
  api: string;
  metricsUrl: string;
  /** The admin key `meerkat dev` created and printed, and its organization. */
  key: string;
  organization: string;
  /** Stops the process and removes its data folder. */
  stop(): Promise<void>;
}

/** `meerkat dev` on free ports with a data folder of its own, ready once it prints its key. */
export async function startMeerkatDev(
  env: Record<string, string> = {},
  readyTimeoutMs?: number,
): Promise<MeerkatDev> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meerkat-dev-'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const process = await startMeerkat(
    ['dev'],
    { MEERKAT_DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(metricsPort), ...env },
    /Try: curl .*\n/,
    readyTimeoutMs,
  );
  return {
    process,
    api: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    key: /Bearer (mk_\S+)"/.exec(process.output())?.[1] ?? '',
    organization: /organization "([^"]+)"/.exec(process.output())?.[1] ?? '',
    async stop() {
      await process.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface MeerkatProcess {
  name: string;
  process: Started;
  /** `http://127.0.0.1:<PORT>`: the API, for a hub. */
  url: string;
  /** The process's Prometheus endpoint, on its METRICS_PORT. */
  metricsUrl: string;
}

/**
 * Starts meerkat processes side by side, as a deployment runs them, over one environment (DATABASE_URL,
 * REDIS_URL, AUTH_API_KEYS, ...): each on free ports of its own (PORT, METRICS_PORT), on 127.0.0.1, logging at
 * info, with loopback allowed by EGRESS_ALLOW_CIDRS (the targets and receivers of tests listen there), and
 * every process's ports in MEERKAT_ENDPOINTS, as the chart gives them. Resolves once all are ready; if any fails
 * to start, stops the others and rejects.
 */
export async function startMeerkatProcesses(
  env: Record<string, string>,
  /** `env` of one process is added to the shared one (a V8 flag of the workers alone, say). */
  processes: Array<{ name: string; args: string[]; ready: RegExp; env?: Record<string, string> | undefined }>,
  readyTimeoutMs?: number,
): Promise<MeerkatProcess[]> {
  const ports = await Promise.all(processes.map(async () => [await freePort(), await freePort()] as const));
  const endpoints = ports.flat().map((port) => `127.0.0.1:${port}`);
  const results = await Promise.allSettled(
    processes.map(async ({ name, args, ready, env: own }, index): Promise<MeerkatProcess> => {
      const [port, metricsPort] = ports[index] ?? [0, 0];
      const started = await startMeerkat(
        args,
        {
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          EGRESS_ALLOW_CIDRS: LOOPBACK_CIDRS,
          MEERKAT_ENDPOINTS: endpoints.join(','),
          ...env,
          ...own,
          PORT: String(port),
          METRICS_PORT: String(metricsPort),
        },
        ready,
        readyTimeoutMs,
      );
      return {
        name,
        process: started,
        url: `http://127.0.0.1:${port}`,
        metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      };
    }),
  );
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((p) => p.process.stop()));
    throw failure.reason;
  }
  return started;
}
