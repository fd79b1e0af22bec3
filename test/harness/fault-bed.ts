// A PostgreSQL and a Redis of one test file's own, for the fault suite (test/faults/): unlike the servers of
// global-setup.ts, which every file shares, these may be stopped, killed and started again on the same port and
// data directory. Each lives in a temp dir on a free loopback port; close() removes everything, and the servers
// still running when the test process exits are killed then.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  findPostgresBinDir,
  findRedisServer,
  postgresAnswers,
  postgresUser,
  redisPing,
  spawnLogged,
  type RunAs,
} from './global-setup.js';
import { freePort } from './processes.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

// SIGQUIT is PostgreSQL's immediate shutdown: unlike SIGKILL it frees shared memory.
const liveServers = new Map<ChildProcess, NodeJS.Signals>();
process.on('exit', () => {
  for (const [child, signal] of liveServers) child.kill(signal);
});

/** One run of a server process: started, and ended (its exit or spawn error, as text). */
interface ServerRun {
  child: ChildProcess;
  ended: Promise<string>;
  readLog(): string;
}

/** Spawns a server, polls `isReady` (bounded) and returns the run; a server that ends or stays unready throws. */
async function startServerRun(
  name: string,
  command: string,
  args: string[],
  dir: string,
  runAs: RunAs,
  crashSignal: NodeJS.Signals,
  isReady: () => Promise<boolean>,
): Promise<ServerRun> {
  const run = spawnLogged(name, command, args, dir, runAs);
  liveServers.set(run.child, crashSignal);
  let endReason: string | undefined;
  void run.ended.then((reason) => {
    endReason = reason;
    liveServers.delete(run.child);
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await isReady())) {
    if (endReason !== undefined || Date.now() > deadline) {
      run.child.kill('SIGKILL');
      const reason = endReason ?? `not ready within ${START_TIMEOUT_MS} ms`;
      throw new Error(`${name} failed to start (${reason}); last log lines:\n${run.readLog()}`);
    }
    await sleep(100);
  }
  return run;
}

/** Waits (bounded) for a run to end; SIGKILLs it when it does not. */
async function awaitEnd(run: ServerRun): Promise<void> {
  const timedOut = Symbol('timed out');
  const outcome = await Promise.race([run.ended, sleep(STOP_TIMEOUT_MS, timedOut, { ref: false })]);
  if (outcome === timedOut) {
    run.child.kill('SIGKILL');
    await run.ended;
  }
}

/** A command to completion, as `runAs`; throws with its output when it fails. */
function runTool(command: string, args: string[], runAs: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output}`)),
    );
  });
}

export interface FaultPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the same before and after a restart. */
  url: string;
  running(): boolean;
  /** `pg_ctl stop -m immediate`: the postmaster and every backend quit at once, as in a crash. */
  stopImmediately(): Promise<void>;
  /** `pg_ctl stop -m fast`: a clean shutdown. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory (crash recovery, if it was stopped immediately). */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers, as in a hang. */
  pause(): void;
  /** SIGCONT to the processes pause() stopped. */
  resume(): void;
}

export interface FaultRedis {
  /** `redis://127.0.0.1:<port>`: the same before and after a restart. */
  url: string;
  running(): boolean;
  /** `kill -9`. Nothing is persisted, so the next start() is empty. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers. */
  pause(): void;
  resume(): void;
}

export interface FaultBed {
  postgres: FaultPostgres;
  redis: FaultRedis;
  /** Stops what still runs and removes both temp dirs. */
  close(): Promise<void>;
}

/** The children of `pid`, read from /proc (a postmaster's backends and helpers). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return children;
}

/** Stops a server process and its children (the parent first, so it forks no more), and continues them. */
function pausable(pidOf: () => number | undefined) {
  let paused: number[] = [];
  return {
    pause() {
      const pid = pidOf();
      if (pid === undefined) throw new Error('not running: nothing to pause');
      process.kill(pid, 'SIGSTOP');
      paused = [pid, ...childrenOf(pid)];
      for (const child of paused.slice(1)) process.kill(child, 'SIGSTOP');
    },
    resume() {
      for (const pid of paused) process.kill(pid, 'SIGCONT');
      paused = [];
    },
  };
}

async function createFaultPostgres(binDir: string, dir: string): Promise<FaultPostgres> {
  const runAs = postgresUser();
  if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  const dataDir = join(dir, 'data');
  const initdbArgs = ['--auth=trust', '--username=postgres', '--no-sync', '--locale=C', '--encoding=UTF8'];
  const initdb = spawnLogged('initdb', join(binDir, 'initdb'), ['-D', dataDir, ...initdbArgs], dir, runAs);
  const initdbEnd = await initdb.ended;
  if (initdbEnd !== 'exit 0') throw new Error(`initdb failed (${initdbEnd}):\n${initdb.readLog()}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // Durable as in production (fsync on): an immediate stop is followed by a real crash recovery.
  const args = ['-D', dataDir, '-p', String(port), '-k', dir, '-h', '127.0.0.1', '-c', 'fsync=on'];
  let current: ServerRun | undefined;
  const pgCtlStop = async (mode: 'immediate' | 'fast') => {
    const run = current;
    if (run === undefined) return;
    current = undefined;
    // A postmaster that has died already has nothing left for pg_ctl to stop.
    if (run.child.exitCode === null && run.child.signalCode === null) {
      await runTool(join(binDir, 'pg_ctl'), ['stop', '-D', dataDir, '-m', mode, '-w'], runAs).catch(
        (error: unknown) => {
          run.child.kill('SIGQUIT');
          throw error;
        },
      );
    }
    await awaitEnd(run);
  };
  const postgres: FaultPostgres = {
    url,
    ...pausable(() => current?.child.pid),
    running: () => current !== undefined && current.child.exitCode === null,
    stopImmediately: () => pgCtlStop('immediate'),
    stop: () => pgCtlStop('fast'),
    async start() {
      if (current !== undefined) throw new Error('PostgreSQL is running already');
      const command = join(binDir, 'postgres');
      current = await startServerRun('postgres', command, args, dir, runAs, 'SIGQUIT', () =>
        postgresAnswers(url),
      );
    },
  };
  await postgres.start();
  return postgres;
}

async function createFaultRedis(command: string, dir: string): Promise<FaultRedis> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'no'];
  const noPersistence = ['--save', '', '--appendonly', 'no', '--dir', dir];
  let current: ServerRun | undefined;
  const redis: FaultRedis = {
    url: `redis://127.0.0.1:${port}`,
    ...pausable(() => current?.child.pid),
    running: () => current !== undefined && current.child.exitCode === null,
    async kill() {
      const run = current;
      if (run === undefined) return;
      run.child.kill('SIGKILL');
      await awaitEnd(run);
      current = undefined;
    },
    async start() {
      if (current !== undefined) throw new Error('Redis is running already');
      current = await startServerRun(
        'redis',
        command,
        [...args, ...noPersistence],
        dir,
        undefined,
        'SIGKILL',
        () => redisPing(port),
      );
    },
  };
  await redis.start();
  return redis;
}

/**
 * Starts a PostgreSQL and a Redis of the caller's own, with the binaries global-setup.ts finds (which has
 * installed them if they were missing). Throws naming what is missing.
 */
export async function startFaultBed(): Promise<FaultBed> {
  const binDir = findPostgresBinDir();
  const redisServer = findRedisServer();
  if (binDir === undefined || !fs.existsSync(join(binDir, 'pg_ctl'))) {
    throw new Error('PostgreSQL server binaries (postgres, initdb, pg_ctl) not found: install postgresql');
  }
  if (redisServer === undefined) throw new Error('redis-server not found: install redis-server');
  const pgDir = fs.mkdtempSync(join(tmpdir(), 'meerkat-fault-pg-'));
  const redisDir = fs.mkdtempSync(join(tmpdir(), 'meerkat-fault-redis-'));
  const removeDirs = () => {
    fs.rmSync(pgDir, { recursive: true, force: true });
    fs.rmSync(redisDir, { recursive: true, force: true });
  };
  const [postgres, redis] = await Promise.allSettled([
    createFaultPostgres(binDir, pgDir),
    createFaultRedis(redisServer, redisDir),
  ]);
  const close = async () => {
    const stopped = await Promise.allSettled([
      postgres.status === 'fulfilled' ? postgres.value.stopImmediately() : undefined,
      redis.status === 'fulfilled' ? redis.value.kill() : undefined,
    ]);
    removeDirs();
    const failed = stopped.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  };
  if (postgres.status === 'rejected' || redis.status === 'rejected') {
    await close();
    throw postgres.status === 'rejected' ? postgres.reason : (redis as PromiseRejectedResult).reason;
  }
  return { postgres: postgres.value, redis: redis.value, close };
}
