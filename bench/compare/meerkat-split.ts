// Meerkat as the chart runs it: `meerkat hub`, `scheduler` and one `worker` as separate processes over a
// PostgreSQL and a Redis of the benchmark's own (the test harness's servers, with its settings), migrated first
// as `meerkat migrate` does, with an admin key as `meerkat keygen` makes one.
import { Redis } from 'ioredis';
import pg from 'pg';
import { formatApiKeyEntry, generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import { openDatabase } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { startTestServices } from '../../test/harness/global-setup.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../../test/harness/processes.js';
import { modeEnvironment, type RunningSystem, type Workload } from './bench-system.js';
import { killOnExit, stopChild, within } from './bounded.js';
import { describeChild } from './diagnosis.js';
import { createMonitors, monitorIds, readWindowRuns } from './meerkat-monitors.js';
import { processState } from './process-tree.js';
import { runFigures, schedulesOf } from './window-figures.js';

const ORGANIZATION = 'bench';
const START_MS = 150_000;
const QUERY_MS = 60_000;
/** The processes' own bound on stopping; they are killed only 5 s after it. */
const SHUTDOWN_GRACE_SECONDS = 10;

/**
 * The processes of the deployment: a hub, a scheduler and `workers` workers (worker, worker-2, ...); with
 * `schedulerInWorker` no scheduler, and the first worker keeps the schedules (it logs its ready line last). With
 * `workerInHub` the hub is the first worker (`hub --locations default`, docs/adr/0086-worker-in-the-hub.md), and
 * keeps the schedules with `schedulerInWorker`: `workers - 1` worker processes run beside it.
 */
export const kindsOf = (
  layout: { workers: number; schedulerInWorker: boolean; workerInHub: boolean },
  processEnv: ProcessEnv = {},
) => {
  const { workers, schedulerInWorker, workerInHub } = layout;
  const served = (i: number) => [
    '--locations',
    'default',
    ...(schedulerInWorker && i === 0 ? ['--with-scheduler'] : []),
  ];
  return [
    {
      name: 'hub',
      args: ['hub', ...(workerInHub ? served(0) : [])],
      ready: /hub API listening/,
      env: processEnv.hub,
    },
    ...(schedulerInWorker
      ? []
      : [{ name: 'scheduler', args: ['scheduler'], ready: /scheduler running/, env: processEnv.scheduler }]),
    ...Array.from({ length: workers }, (_, i) => i)
      .filter((i) => !(workerInHub && i === 0))
      .map((i) => ({
        name: i === 0 ? 'worker' : `worker-${i + 1}`,
        args: ['worker', ...served(i)],
        ready: schedulerInWorker && i === 0 ? /scheduler running/ : /worker consuming runs/,
        env: processEnv.worker,
      })),
  ];
};

/** Variables of one process on top of the deployment's (bench:compare's `--env`); `worker` is every worker. */
type ProcessEnv = Readonly<Partial<Record<'hub' | 'scheduler' | 'worker', Record<string, string>>>>;

export async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function migrate(databaseUrl: string): Promise<void> {
  const { db } = openDatabase({ url: databaseUrl, dataDir: '/nonexistent', poolSize: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** Transactions and rows written on PostgreSQL, commands on Redis: how much work a check costs them. */
async function databaseCounters(databaseUrl: string, redisUrl: string): Promise<Record<string, number>> {
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{ transactions: string; written: string }>(
      `select xact_commit + xact_rollback as transactions, tup_inserted + tup_updated + tup_deleted as written
       from pg_stat_database where datname = current_database()`,
    ),
  );
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 5_000, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    const stats = await redis.info('stats');
    return {
      'PostgreSQL transactions': Number(rows[0]?.transactions),
      'PostgreSQL rows written': Number(rows[0]?.written),
      'Redis commands': Number(/total_commands_processed:(\d+)/.exec(stats)?.[1]),
    };
  } finally {
    redis.disconnect();
  }
}

/** A split deployment over servers of its own: its processes, an admin key per organization, the servers' pids. */
export interface SplitDeployment {
  databaseUrl: string;
  redisUrl: string;
  processes: MeerkatProcess[];
  /** The process named `name` (hub, scheduler, worker, worker-2, ...). */
  byName(name: string): MeerkatProcess;
  /** Organization -> its admin key. */
  keys: Record<string, string>;
  pids: { postgres: number; redis: number };
  diagnose(): string[];
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL, Redis, and the hub, scheduler and `workers` workers over them, with an admin key for each
 * of `organizations` and `env` added to every process's environment (WORKER_CONCURRENCY, say).
 */
export async function startSplitDeployment(input: {
  workers: number;
  /** No scheduler process: the first worker runs `--with-scheduler`. */
  schedulerInWorker?: boolean;
  /** The hub is the first worker: `hub --locations default`. */
  workerInHub?: boolean;
  organizations: readonly string[];
  env?: Record<string, string>;
  /** Variables of one process on top of `env`: the hub's, the scheduler's, every worker's. */
  processEnv?: ProcessEnv;
  /** PostgreSQL durable as in production (fsync on): `bench:compare --production`. */
  durable?: boolean;
}): Promise<SplitDeployment> {
  const services = await within(
    'starting PostgreSQL and Redis',
    START_MS,
    startTestServices({ durable: input.durable ?? false }),
  );
  const processes: MeerkatProcess[] = [];
  const stop = async () => {
    await Promise.all(
      processes.map((p) => stopChild(p.process.child, 'SIGTERM', (SHUTDOWN_GRACE_SECONDS + 5) * 1000)),
    );
    await services.stop();
  };
  try {
    const { postgres, redis } = services.pids;
    if (postgres === undefined || redis === undefined)
      throw new Error('DATABASE_URL or REDIS_URL is set: the benchmark counts the CPU of servers of its own');
    await within('migrating the database', START_MS, migrate(services.databaseUrl));
    const keys = Object.fromEntries(
      input.organizations.map((organization) => [organization, generateApiKey()]),
    );
    const env = {
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      AUTH_API_KEYS: Object.entries(keys)
        .map(([organizationId, key]) =>
          formatApiKeyEntry({ organizationId, role: 'admin', sha256: hashApiKey(key) }),
        )
        .join(','),
      SECRETS_KEY: 'be'.repeat(32),
      SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS),
      // The benchmark creates thousands of monitors with one key.
      API_RATE_LIMIT_PER_SECOND: '0',
      ...input.env,
    };
    // Each start is bounded by the harness (60 s); this bound is for the case it is not.
    const started = await within(
      'starting hub, scheduler and worker',
      START_MS,
      startMeerkatProcesses(
        env,
        kindsOf(
          {
            workers: input.workers,
            schedulerInWorker: input.schedulerInWorker ?? false,
            workerInHub: input.workerInHub ?? false,
          },
          input.processEnv,
        ),
      ),
    );
    for (const p of started) killOnExit(p.process.child);
    processes.push(...started);
    return {
      databaseUrl: services.databaseUrl,
      redisUrl: services.redisUrl,
      processes: started,
      byName: (name) => started.find((p) => p.name === name) as MeerkatProcess,
      keys,
      pids: { postgres, redis },
      diagnose: () => [
        ...started.map((p) => describeChild(p.name, p.process.child, p.process.output())),
        `PostgreSQL: ${processState(postgres)}`,
        `Redis: ${processState(redis)}`,
      ],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What runs where, e.g. `Meerkat split (hub, 1 worker with the scheduler, PostgreSQL fsync on, Redis)`. */
function splitLabel(workload: Workload): string {
  const inWorker = workload.schedulerInWorker === true;
  const inHub = workload.workerInHub === true;
  const workers = workload.workers - (inHub ? 1 : 0);
  const parts = [
    inHub ? `hub checking${inWorker ? ' with the scheduler' : ''}` : 'hub',
    ...(inWorker ? [] : ['scheduler']),
    ...(workers === 0
      ? []
      : [`${workers} worker${workers === 1 ? '' : 's'}${inWorker && !inHub ? ' with the scheduler' : ''}`]),
    `PostgreSQL${workload.production ? ' fsync on' : ''}`,
    'Redis',
  ];
  return `Meerkat split (${parts.join(', ')})`;
}

export async function startMeerkatSplit(workload: Workload): Promise<RunningSystem> {
  const deployment = await startSplitDeployment({
    workers: workload.workers,
    schedulerInWorker: workload.schedulerInWorker ?? false,
    workerInHub: workload.workerInHub ?? false,
    organizations: [ORGANIZATION],
    env: modeEnvironment(workload),
    ...(workload.processEnv === undefined ? {} : { processEnv: workload.processEnv }),
    durable: workload.production,
  });
  try {
    const { databaseUrl, redisUrl, processes, pids } = deployment;
    const ids = monitorIds(workload.monitors);
    const key = deployment.keys[ORGANIZATION] ?? '';
    await createMonitors({ apiUrl: deployment.byName('hub').url, key, ids, ...workload });
    const schedules = schedulesOf(ORGANIZATION, ids, workload.everySeconds * 1000);
    return {
      label: splitLabel(workload),
      components: {
        ...Object.fromEntries(processes.map((p) => [p.name, [p.process.child.pid ?? 0]])),
        PostgreSQL: [pids.postgres],
        Redis: [pids.redis],
      },
      metricsUrls: Object.fromEntries(processes.map((p) => [p.name, p.metricsUrl])),
      counters: () => databaseCounters(databaseUrl, redisUrl),
      async figures(fromMs, toMs) {
        const runs = await within(
          'reading the runs of the window',
          QUERY_MS,
          withClient(databaseUrl, (client) => readWindowRuns(client, fromMs, toMs)),
        );
        const figures = runFigures({ schedules, runs, fromMs, toMs });
        return { ...figures, note: `run rows of the window's slots; lateness is started_at minus the slot` };
      },
      diagnose: () => deployment.diagnose(),
      stop: () => deployment.stop(),
    };
  } catch (error) {
    await deployment.stop();
    throw error;
  }
}
