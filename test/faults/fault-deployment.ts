// Meerkat as the chart runs it (split `meerkat hub`, `scheduler`, `worker` processes) over a PostgreSQL and a
// Redis of the test file's own (test/harness/fault-bed.ts), so a test can stop, kill and restart them.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import { scheduleId, scheduleOffsetMs } from '../../hub/src/scheduling/schedules.js';
import { eventually } from '../harness/eventually.js';
import { startFaultBed, type FaultBed } from '../harness/fault-bed.js';
import { LOOPBACK_CIDRS } from '../harness/egress.js';
import { freePort, meerkatBin, runMeerkat, startMeerkat, type MeerkatProcess } from '../harness/processes.js';
import type { CountingTarget } from './counting-target.js';
import type { RecordedGap, RecordedRun, Schedule } from './slot-accounting.js';

const ORGANIZATION = 'acme';
/** A second organization every deployment knows, for what one tenant's load does to another's checks. */
export const OTHER_ORGANIZATION = 'beta';
/** The shortest frequency the contract allows: 10 seconds. */
const EVERY_TEN_SECONDS = { every: 1 / 6, unit: 'MINUTE' } as const;
export const TEN_SECONDS_MS = 10_000;

export type ProcessKind = 'hub' | 'scheduler' | 'worker' | 'dev';
/** The kind of a process by its name: `worker-2` is a worker. */
const kindOf = (name: string): ProcessKind => name.replace(/-\d+$/, '') as ProcessKind;
const processArgs: Record<ProcessKind, { args: string[]; ready: RegExp }> = {
  hub: { args: ['hub'], ready: /hub API listening/ },
  scheduler: { args: ['scheduler'], ready: /scheduler running/ },
  worker: { args: ['worker', '--locations', 'default'], ready: /worker consuming runs/ },
  // Everything in one process: the API, the scheduler and a worker, over its in-process queue without REDIS_URL.
  dev: { args: ['dev'], ready: /Meerkat dev hub on / },
};

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  ms: number;
}

export interface FaultDeployment {
  bed: FaultBed;
  /** The environment every process gets (DATABASE_URL, REDIS_URL, keys, ...), without ports. */
  env: Record<string, string>;
  /** The admin key of organization `acme`. */
  key: string;
  /** The admin key of OTHER_ORGANIZATION. */
  otherKey: string;
  processes: MeerkatProcess[];
  hub(): MeerkatProcess;
  /** Starts one more process over the same environment, on ports of its own. */
  start(kind: ProcessKind, name?: string, env?: Record<string, string>): Promise<MeerkatProcess>;
  /** Sends a signal the test means (kill -9, SIGTERM): exited() leaves that process out from now on. */
  signal(process: MeerkatProcess, signal: NodeJS.Signals): void;
  /** The names of processes that have exited (any way) and were not signalled by the test. */
  exited(): string[];
  /** A call of the API (the hub's, or `meerkat dev`'s) as `acme` (or with `key`), bounded by `timeoutMs` (a call that takes longer throws). */
  api(method: string, path: string, body?: unknown, timeoutMs?: number, key?: string): Promise<ApiAnswer>;
  /** Every run row, read on a connection of its own. */
  runs(): Promise<RecordedRun[]>;
  /** Every gap row of the slot ledger (`slot_gaps`), read on a connection of its own. */
  gaps(): Promise<RecordedGap[]>;
  /**
   * Starts a process anew in place of `process` (which the test stopped or killed, and which must have exited):
   * same kind and name, new ports; `hub()` and `exited()` know only the new one from then on.
   */
  replace(process: MeerkatProcess): Promise<MeerkatProcess>;
  close(): Promise<void>;
}

/**
 * Creates a counting monitor (every 10 s; its target answers after `monitor.ms`) per id through the API and waits until each has a run: from then on
 * every schedule exists, so counted slots may start. Throws when a monitor is refused.
 */
export async function createMonitorsAndAwaitFirstRuns(
  deployment: FaultDeployment,
  target: CountingTarget,
  ids: readonly string[],
  monitor: { ms?: number } = {},
): Promise<void> {
  for (const id of ids) {
    const answer = await deployment.api('PUT', `/monitor/${id}`, countingMonitor(target, id, monitor));
    if (answer.status !== 201) throw new Error(`PUT /monitor/${id} answered ${answer.status}`);
  }
  await eventually(
    'a run of every monitor',
    async () => {
      const ran = new Set((await deployment.runs()).map((run) => run.monitorId));
      return ids.every((id) => ran.has(id));
    },
    60_000,
  );
}

/** `GET /hit/<id>` on the counting target and a status assertion, every 10 s unless said otherwise. */
export function countingMonitor(
  target: CountingTarget,
  id: string,
  options: { ms?: number; frequency?: object } = {},
) {
  return {
    project: 'faults',
    name: id,
    version: '1.0',
    environment: 'production',
    frequency: options.frequency ?? EVERY_TEN_SECONDS,
    nodes: [
      {
        id: 'get',
        type: 'HTTP_REQUEST',
        method: 'GET',
        base: target.url,
        path: `/hit/${id}${options.ms ? `?ms=${options.ms}` : ''}`,
        response_format: 'JSON',
      },
      {
        id: 'check',
        type: 'ASSERTION',
        assertions: [
          {
            nodeId: 'get',
            subject: 'status',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
          },
        ],
      },
    ],
    edges: [{ from: 'get', to: 'check' }],
  };
}

/** The schedule the scheduler keeps for a monitor in location `default`. */
export function scheduleOf(
  monitorId: string,
  everyMs = TEN_SECONDS_MS,
  organization = ORGANIZATION,
): Schedule {
  const id = scheduleId(organization, monitorId, 'default');
  return { monitorId, everyMs, offsetMs: scheduleOffsetMs(id, everyMs) };
}

/** Runs `read` on a connection of its own, closed after. */
async function withClient<T>(url: string, read: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await read(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function readGaps(url: string): Promise<RecordedGap[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ monitor_id: string; schedule_slot: string; reason: string }>(
      'select monitor_id, schedule_slot, reason from slot_gaps',
    );
    return rows.map((row) => ({
      monitorId: row.monitor_id,
      scheduleSlot: row.schedule_slot,
      reason: row.reason,
    }));
  });
}

async function readRuns(url: string): Promise<RecordedRun[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{
      monitor_id: string;
      schedule_slot: string | null;
      status: RecordedRun['status'];
      started_at: Date | null;
      completed_at: Date | null;
    }>('select monitor_id, schedule_slot, status, started_at, completed_at from runs');
    return rows.map((row) => ({
      monitorId: row.monitor_id,
      scheduleSlot: row.schedule_slot,
      status: row.status,
      startedAt: row.started_at,
      completedAt: row.completed_at,
    }));
  });
}

/** Kills a process that still runs (SIGKILL) and waits for its end. */
async function killProcess(process: MeerkatProcess): Promise<void> {
  const { child } = process.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Waits up to `timeoutMs` for a process to exit; answers its exit code (null after a signal) and how long it
 * took, or undefined when it still runs.
 */
export async function exitWithin(
  process: MeerkatProcess,
  timeoutMs: number,
): Promise<{ code: number | null; ms: number } | undefined> {
  const { child } = process.process;
  const started = Date.now();
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, ms: 0 };
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, ms: Date.now() - started })),
  );
  return Promise.race([exited, sleep(timeoutMs, undefined, { ref: false })]);
}

/** A `meerkat` command to completion, killed after `timeoutMs`; as runMeerkat, with a bound. */
export function runMeerkatWithin(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [meerkatBin, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

export interface WatchedProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once the output matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
}

/** Starts a `meerkat` command whose output the test watches as it comes (startMeerkat shows it only when ready). */
export function startWatched(args: string[], env: Record<string, string>): WatchedProcess {
  const child = spawn(process.execPath, [meerkatBin, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    output: () => output,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `meerkat ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}):\n${output}`,
          );
        if (Date.now() > deadline)
          throw new Error(
            `meerkat ${args.join(' ')}: no ${String(pattern)} within ${timeoutMs} ms:\n${output}`,
          );
        await sleep(100);
      }
    },
  };
}

/** True when `text` holds a JavaScript stack trace, raw or inside a JSON log line. */
export function hasStackTrace(text: string): boolean {
  return /(^|\\n)\s+at \S/m.test(text) || /"stack":/.test(text);
}

/**
 * Starts the bed, migrates it with `meerkat migrate`, and starts the given processes; with `redis: false` they
 * are not told the bed's Redis (`meerkat dev` then keeps its queue in its memory). On any failure what has
 * started is stopped again.
 */
export async function startFaultDeployment(
  kinds: ProcessKind[],
  extraEnv: Record<string, string> = {},
  options: { redis?: boolean } = {},
): Promise<FaultDeployment> {
  const bed = await startFaultBed();
  const key = generateApiKey();
  const otherKey = generateApiKey();
  const env: Record<string, string> = {
    DATABASE_URL: bed.postgres.url,
    ...(options.redis === false ? {} : { REDIS_URL: bed.redis.url }),
    AUTH_API_KEYS: `${ORGANIZATION}:admin:${hashApiKey(key)},${OTHER_ORGANIZATION}:admin:${hashApiKey(otherKey)}`,
    SECRETS_KEY: 'fa'.repeat(32),
    EGRESS_ALLOW_CIDRS: LOOPBACK_CIDRS,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // The tests' own traffic must never be what answers 429.
    API_RATE_LIMIT_PER_SECOND: '0',
    ...extraEnv,
  };
  const processes: MeerkatProcess[] = [];
  const stoppedByTest = new Set<MeerkatProcess>();
  const start = async (kind: ProcessKind, name: string = kind, more: Record<string, string> = {}) => {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    const { args, ready } = processArgs[kind];
    const ports = { PORT: String(port), METRICS_PORT: String(metricsPort) };
    const started = await startMeerkat(args, { ...env, ...more, ...ports }, ready);
    const process: MeerkatProcess = {
      name,
      process: started,
      url: `http://127.0.0.1:${port}`,
      metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    };
    processes.push(process);
    return process;
  };
  const close = async () => {
    await Promise.all(processes.map(killProcess));
    await bed.close();
  };
  try {
    const migrated = await runMeerkat(['migrate'], { DATABASE_URL: bed.postgres.url });
    if (migrated.code !== 0) throw new Error(`meerkat migrate failed: ${migrated.stderr}`);
    for (const kind of kinds) await start(kind);
  } catch (error) {
    await close();
    throw error;
  }
  const hub = () => {
    const found = processes.find((p) => p.name === 'hub' || p.name === 'dev');
    if (found === undefined) throw new Error('this deployment runs no hub and no meerkat dev');
    return found;
  };
  return {
    bed,
    env,
    key,
    otherKey,
    processes,
    hub,
    start,
    signal(process, signal) {
      stoppedByTest.add(process);
      process.process.child.kill(signal);
    },
    exited: () =>
      processes
        .filter((p) => !stoppedByTest.has(p))
        .filter((p) => p.process.child.exitCode !== null || p.process.child.signalCode !== null)
        .map((p) => `${p.name} (${p.process.child.exitCode ?? p.process.child.signalCode})`),
    async api(method, path, body, timeoutMs = 10_000, as = key) {
      const started = Date.now();
      const response = await fetch(`${hub().url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${as}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the test sees the text.
      }
      return { status: response.status, headers: response.headers, body: parsed, ms: Date.now() - started };
    },
    runs: () => readRuns(bed.postgres.url),
    gaps: () => readGaps(bed.postgres.url),
    async replace(process) {
      const { child } = process.process;
      if (child.exitCode === null && child.signalCode === null)
        throw new Error(`${process.name} still runs: stop it before replacing it`);
      processes.splice(processes.indexOf(process), 1);
      return start(kindOf(process.name), process.name);
    },
    close,
  };
}
