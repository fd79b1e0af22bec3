// vitest globalSetup: provides a PostgreSQL and a Redis server to all test files, and a migrated template
// database on that PostgreSQL server.
// DATABASE_URL / REDIS_URL select existing servers; otherwise throwaway ones are started in temp dirs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createMigratedTemplate, dropDatabase } from './postgres-admin.js';
import { freePort } from './processes.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const isRoot = process.getuid?.() === 0;

interface RunningServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}
export type RunAs = { uid: number; gid: number } | undefined;

// Servers still running, so an interrupted vitest (it turns SIGINT/SIGTERM into process.exit) does not
// leave them behind. SIGQUIT is PostgreSQL's immediate shutdown: unlike SIGKILL it frees shared memory.
const liveChildren = new Map<ChildProcess, { crashSignal: NodeJS.Signals; dir: string }>();
process.on('exit', () => {
  for (const [child, { crashSignal, dir }] of liveChildren) {
    child.kill(crashSignal);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const logTail = (text: string) => text.trimEnd().split('\n').slice(-25).join('\n');
const removeDir = (dir: string) => fs.rmSync(dir, { recursive: true, force: true });

function findInPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return dirs.find((dir) => fs.existsSync(join(dir, name)));
}

/** Directory holding both `postgres` and `initdb`: PATH first, then Debian's versioned layout (newest). */
export function findPostgresBinDir(): string | undefined {
  const inPath = findInPath('postgres');
  if (inPath && fs.existsSync(join(inPath, 'initdb'))) return inPath;
  const debianRoot = '/usr/lib/postgresql';
  if (!fs.existsSync(debianRoot)) return undefined;
  return fs
    .readdirSync(debianRoot)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(debianRoot, version, 'bin'))
    .find((dir) => fs.existsSync(join(dir, 'postgres')) && fs.existsSync(join(dir, 'initdb')));
}

/** Whether the PostgreSQL server at `url` accepts a connection and answers a query (within about a second). */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function findRedisServer(): string | undefined {
  const dir = findInPath('redis-server') ?? (fs.existsSync('/usr/bin/redis-server') ? '/usr/bin' : undefined);
  return dir && join(dir, 'redis-server');
}

function aptInstall(packages: string[]): void {
  console.error(`[test harness] installing ${packages.join(' ')} with apt-get`);
  const options = { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8' } as const;
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], options);
  let result = install();
  // Package lists are often missing in fresh containers; refreshing is slow, so only do it when needed.
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], options);
    result = install();
  }
  if (result.status !== 0)
    throw new Error(`apt-get install failed:\n${logTail(result.stdout + result.stderr)}`);
}

/** PostgreSQL refuses to run as root, so as root its processes run as the `postgres` system user. */
export function postgresUser(): RunAs {
  if (!isRoot) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const args = ['--system', '--user-group', '--no-create-home', 'postgres'];
    const created = spawnSync('useradd', args, { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`could not create the postgres user: ${created.stderr}`);
  }
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}

/** Spawns a child whose output goes to dir/<name>.log, kept for error messages. */
export function spawnLogged(name: string, command: string, args: string[], dir: string, runAs: RunAs) {
  const logPath = join(dir, `${name}.log`);
  const logFd = fs.openSync(logPath, 'a');
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', logFd, logFd], ...runAs });
  fs.closeSync(logFd);
  // A spawn error (e.g. not executable) emits 'error' and never 'exit'; record both as the end.
  const ended = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(error.message));
    child.once('exit', (code, signal) => resolve(`exit ${code ?? signal}`));
  });
  return { child, ended, readLog: () => logTail(fs.readFileSync(logPath, 'utf8')) };
}

interface ServerSpec {
  name: string;
  command: string;
  args: string[];
  dir: string;
  runAs?: RunAs;
  url: string;
  stopSignal: NodeJS.Signals;
  crashSignal: NodeJS.Signals;
  isReady(): Promise<boolean>;
}

/** Starts a server, polls isReady() and returns a handle that stops it and removes its dir. */
async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const { child, ended, readLog } = spawnLogged(spec.name, spec.command, spec.args, spec.dir, spec.runAs);
  liveChildren.set(child, { crashSignal: spec.crashSignal, dir: spec.dir });
  let endReason: string | undefined;
  void ended.then((reason) => (endReason = reason));
  // Unref'd timers, so a pending timeout does not keep vitest alive after the child has exited.
  const waitForEnd = () => Promise.race([ended, sleep(STOP_TIMEOUT_MS, undefined, { ref: false })]);

  const stop = async (): Promise<void> => {
    if (endReason === undefined && child.kill(spec.stopSignal) && (await waitForEnd()) === undefined) {
      child.kill('SIGKILL');
      await waitForEnd();
    }
    liveChildren.delete(child);
    removeDir(spec.dir);
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await spec.isReady())) {
    if (endReason !== undefined || Date.now() > deadline) {
      const log = readLog();
      await stop();
      const reason = endReason ?? `no connection within ${START_TIMEOUT_MS} ms`;
      throw new Error(`${spec.name} failed to start (${reason}); last log lines:\n${log}`);
    }
    await sleep(100);
  }
  return { url: spec.url, pid: child.pid, stop };
}

async function startPostgres(binDir: string, durable: boolean): Promise<RunningServer> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'meerkat-pg-'));
  const runAs = postgresUser();
  if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  const dataDir = join(dir, 'data');
  // C locale: the host's LANG may name a locale that is not installed, which makes initdb fail.
  const initdbArgs = ['--auth=trust', '--username=postgres', '--no-sync', '--locale=C', '--encoding=UTF8'];
  const initdb = spawnLogged('initdb', join(binDir, 'initdb'), ['-D', dataDir, ...initdbArgs], dir, runAs);
  const initdbEnd = await initdb.ended;
  if (initdbEnd !== 'exit 0') {
    const log = initdb.readLog();
    removeDir(dir);
    throw new Error(`initdb failed (${initdbEnd}); last log lines:\n${log}`);
  }

  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // Durability is pointless for a throwaway cluster; many parallel test files need many connections. A benchmark
  // of production figures (`bench:compare --production`) keeps PostgreSQL's durable defaults.
  const fast = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
  const settings = [...(durable ? [] : fast), 'max_connections=300'];
  const args = ['-D', dataDir, '-p', String(port), '-k', dir, '-h', '127.0.0.1'];
  return startServer({
    name: 'postgres',
    command: join(binDir, 'postgres'),
    args: [...args, ...settings.flatMap((setting) => ['-c', setting])],
    dir,
    runAs,
    url,
    stopSignal: 'SIGINT', // fast shutdown
    crashSignal: 'SIGQUIT',
    isReady: () => postgresAnswers(url),
  });
}

/** Minimal RESP PING, so readiness polling does not depend on a client library's retry behaviour. */
export function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 1000 });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.on('error', () => finish(false));
    socket.on('timeout', () => finish(false));
  });
}

async function startRedis(command: string): Promise<RunningServer> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'meerkat-redis-'));
  const port = await freePort();
  const persistence = ['--save', '', '--appendonly', 'no', '--dir', dir];
  return startServer({
    name: 'redis',
    command,
    args: ['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'no', ...persistence],
    dir,
    url: `redis://127.0.0.1:${port}`,
    stopSignal: 'SIGTERM',
    crashSignal: 'SIGKILL',
    isReady: () => redisPing(port),
  });
}

export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
  /** Process ids of the servers this started (none for external ones), for CPU accounting in benchmarks. */
  pids: { postgres?: number | undefined; redis?: number | undefined };
  stop(): Promise<void>;
}

/**
 * Provides PostgreSQL and Redis: DATABASE_URL / REDIS_URL when set, else throwaway servers on free ports, with
 * PostgreSQL's durability off unless `durable` (fsync, synchronous commits and full-page writes as in production).
 */
export async function startTestServices(options: { durable?: boolean } = {}): Promise<TestServices> {
  const externalDatabaseUrl = process.env.DATABASE_URL || undefined;
  const externalRedisUrl = process.env.REDIS_URL || undefined;
  const locate = () => ({
    postgresBinDir: externalDatabaseUrl ? undefined : findPostgresBinDir(),
    redisServer: externalRedisUrl ? undefined : findRedisServer(),
  });
  let found = locate();
  const missing = [
    ...(!externalDatabaseUrl && !found.postgresBinDir ? ['postgresql'] : []),
    ...(!externalRedisUrl && !found.redisServer ? ['redis-server'] : []),
  ];
  if (missing.length > 0 && isRoot && fs.existsSync('/etc/debian_version')) {
    aptInstall(missing);
    found = locate();
  }
  const { postgresBinDir, redisServer } = found;
  if (!externalDatabaseUrl && !postgresBinDir) {
    throw new Error(
      'PostgreSQL server binaries not found: install postgresql (e.g. apt-get install postgresql) or set DATABASE_URL',
    );
  }
  if (!externalRedisUrl && !redisServer) {
    throw new Error(
      'redis-server not found: install redis-server (e.g. apt-get install redis-server) or set REDIS_URL',
    );
  }

  // Start both at once; if either fails, stop the other before reporting.
  const results = await Promise.allSettled([
    postgresBinDir ? startPostgres(postgresBinDir, options.durable ?? false) : undefined,
    redisServer ? startRedis(redisServer) : undefined,
  ]);
  const [postgres, redis] = results.map((result) =>
    result.status === 'fulfilled' ? result.value : undefined,
  );
  const teardown = async (): Promise<void> => {
    await Promise.all([postgres?.stop(), redis?.stop()]);
  };
  const failure = results.find((result) => result.status === 'rejected');
  const databaseUrl = externalDatabaseUrl ?? postgres?.url;
  const redisUrl = externalRedisUrl ?? redis?.url;
  if (failure || !databaseUrl || !redisUrl) {
    await teardown();
    throw failure?.reason ?? new Error('test servers did not start');
  }
  return {
    databaseUrl,
    redisUrl,
    pids: { postgres: postgres?.pid, redis: redis?.pid },
    stop: teardown,
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const services = await startTestServices();
  // On whichever server is used, the external one too: createTestDatabase({ migrated: true }) clones it.
  const template = await createMigratedTemplate(services.databaseUrl).catch(async (error: unknown) => {
    await services.stop();
    throw error;
  });
  project.provide('databaseUrl', services.databaseUrl);
  project.provide('redisUrl', services.redisUrl);
  project.provide('templateDatabase', template);
  return async () => {
    await dropDatabase(services.databaseUrl, template);
    await services.stop();
  };
}
