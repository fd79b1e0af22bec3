import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import { createCredentialCipher, type CredentialCipher } from '../crypto/credential-cipher.js';
import { openDatabase, pingDatabase, type DatabaseHandle, type Db } from '../db/database.js';
import { assertDatabaseCurrent, migrateToLatest } from '../db/migrator.js';
import { createInProcessRunQueue } from '../scheduling/in-process-run-queue.js';
import { createInProcessScheduleStore } from '../scheduling/in-process-schedule-store.js';
import type { RunQueue } from '../runs/run-queue.js';
import type { ScheduleStore } from '../runs/schedule-store.js';
import { createGcpSecretStore } from '../secrets/gcp-secret-store.js';
import { createLocalSecretStore } from '../secrets/local-secret-store.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { shortReason, withDeadline } from '../system/dependency-errors.js';
import type { ReadinessCheck } from '../system/system.routes.js';
import { waitForDependency } from '../system/wait-for-dependency.js';
import { REDIS_EVICTION_CHECK, assertRedisNeverEvicts } from '../system/redis-eviction-policy.js';
import type { Role } from './assemble.js';

/** What every long-running process opens from its settings, and closes in reverse on the way out. */
export interface Components {
  database: DatabaseHandle;
  db: Db;
  /**
   * For the statements that may rightly take long: partition maintenance, retention deletes, migrations at
   * start. Their own small pool, bounded by MAINTENANCE_TIMEOUT_SECONDS instead of the API's bound.
   */
  maintenanceDb: Db;
  cipher: CredentialCipher;
  secrets: SecretStore;
  runQueue: RunQueue;
  /** The schedules whose due slots the run queue's consumers turn into jobs. */
  schedules: ScheduleStore;
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /** `dev` migrates its own database; every other process refuses one that is behind. */
  migrate: boolean;
  /** The key of the credential cipher; default SECRETS_KEY (which `dev` may lack, and makes up). */
  secretsKey?: string;
  /** The connections of the process's pool when DATABASE_POOL_SIZE is unset: poolSizeFor(its roles). */
  poolSize?: number;
}

/**
 * The secrets backend SECRETS_BACKEND names. The Secret Manager client (gRPC, Application Default Credentials)
 * is loaded only for `gcp`, so `meerkat dev` does not pay for it at start.
 */
async function openSecretStore(settings: Readonly<Settings>, db: Db, cipher: CredentialCipher, log: Logger) {
  if (settings.SECRETS_BACKEND === 'gcp') {
    const { SecretManagerServiceClient } = await import('@google-cloud/secret-manager');
    const client = new SecretManagerServiceClient();
    const store = createGcpSecretStore({ db, client, project: settings.GCP_PROJECT ?? '', log });
    return { store, close: () => client.close() };
  }
  return { store: createLocalSecretStore({ db, cipher }), close: () => Promise.resolve() };
}

/**
 * What /readyz checks. The database decides readiness: the API serves without Redis (docs/operations.md). So does
 * a Redis that answers but may evict keys: its loss is silent and lasting, not a blink.
 */
export function readinessChecks(db: Db, redis: Redis | undefined): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'database', required: true, check: () => pingDatabase(db) }];
  if (redis !== undefined)
    checks.push(
      { name: 'redis', required: false, check: async () => void (await redis.ping()) },
      { name: REDIS_EVICTION_CHECK, required: true, check: () => assertRedisNeverEvicts(redis) },
    );
  return checks;
}

/** How long a query waits for a pooled connection: with the statement bound, within the API's 5 s. */
const CONNECT_WAIT_MS = 1_500;
/**
 * The API's pool: requests come at once, each a short statement or transaction
 * (docs/adr/0081-fewer-postgres-backends.md).
 */
const API_POOL_SIZE = 10;
/**
 * The pool of a process without the API, which every role in it shares (a worker, the scheduler, or both): the
 * run writer writes one batch at a time, and the others (the monitor reader, the gap recorder, the reaper, the
 * notification outbox's sweep, the schedule sync, the slot audit, the gap fold) are each one statement or
 * transaction at a time, none of which waits for a second connection while it holds one. Three let a batch and
 * two of the others run at once; the rest wait their turn, within CONNECT_WAIT_MS. Each connection is a backend
 * that counts PostgreSQL's shared buffers again in its RSS (docs/adr/0081-fewer-postgres-backends.md).
 */
const ROLES_POOL_SIZE = 3;
/**
 * Maintenance (retention, compaction, fold) runs on one connection: its passes take their turn, each waiting for
 * the connection as long as one of its statements may run, rather than a backend each. They come every
 * REAPER_INTERVAL_SECONDS together, so the connection is closed a second after they are done instead of
 * node-postgres' 10 s: its backend exists while they run, not a third of the time.
 */
const MAINTENANCE_POOL_SIZE = 1;
const MAINTENANCE_IDLE_MS = 1_000;

/**
 * The API beside other roles (`meerkat hub --locations`, docs/adr/0086-worker-in-the-hub.md): the run path's three
 * and two more for requests. A small release's API has few callers at once, and at 2,000 monitors every 20 s the
 * API's ten held PostgreSQL at 309 MiB of RSS against 263 with five or three.
 */
const API_WITH_ROLES_POOL_SIZE = 5;

/** The default pool of a process: the API's when it serves the API alone, the roles' when not, else both's. */
export function poolSizeFor(roles: readonly Role[]): number {
  if (!roles.includes('api')) return ROLES_POOL_SIZE;
  return roles.length === 1 ? API_POOL_SIZE : API_WITH_ROLES_POOL_SIZE;
}

/** The pool of the API and the run path, and the small one of maintenance (the same one when embedded). */
function openDatabases(settings: Readonly<Settings>, log: Logger, poolSize: number) {
  const common = {
    url: settings.DATABASE_URL,
    dataDir: settings.MEERKAT_DATA_DIR,
    onClientError: (error: Error) =>
      log.warn({ reason: shortReason(error) }, 'a database connection failed; it will be replaced'),
  };
  const database = openDatabase({
    ...common,
    poolSize,
    bounds: { connectMs: CONNECT_WAIT_MS, statementMs: settings.DATABASE_STATEMENT_TIMEOUT_MS },
  });
  // PGlite is one database in this process: it has no pool, and a second open of its directory would fail.
  if (database.embedded) return { database, maintenanceDb: database.db };
  const maintenanceMs = settings.MAINTENANCE_TIMEOUT_SECONDS * 1000;
  const maintenance = openDatabase({
    ...common,
    poolSize: MAINTENANCE_POOL_SIZE,
    idleMs: MAINTENANCE_IDLE_MS,
    bounds: { connectMs: maintenanceMs, statementMs: maintenanceMs },
  });
  return { database, maintenanceDb: maintenance.db };
}

export async function openComponents(
  settings: Readonly<Settings>,
  log: Logger,
  options: OpenOptions,
): Promise<Components> {
  const poolSize = settings.DATABASE_POOL_SIZE ?? options.poolSize ?? API_POOL_SIZE;
  const { database, maintenanceDb } = openDatabases(settings, log, poolSize);
  const destroyDatabases = async () => {
    await database.db.destroy();
    if (maintenanceDb !== database.db) await maintenanceDb.destroy();
  };
  // The readiness probe's own connection: it fails fast while Redis is away instead of queueing the ping.
  const redis = settings.REDIS_URL === undefined ? undefined : await connectRedis(settings.REDIS_URL);
  redis?.on('error', (error: Error) => log.debug({ reason: shortReason(error) }, 'redis connection error'));
  const wait = { waitSeconds: settings.STARTUP_WAIT_SECONDS, log };
  try {
    await waitForDependency(
      'database',
      async () => {
        if (options.migrate) await migrateToLatest(maintenanceDb);
        else await assertDatabaseCurrent(database.db);
      },
      wait,
    );
    if (redis !== undefined)
      await waitForDependency('redis', () => withDeadline('redis', 2_000, () => redis.ping()), wait);
  } catch (error) {
    await destroyDatabases();
    redis?.disconnect();
    throw error;
  }

  const readiness = readinessChecks(database.db, redis);
  if (redis !== undefined)
    await assertRedisNeverEvicts(redis).catch((error: unknown) =>
      log.error({ reason: shortReason(error) }, 'Redis may evict keys: readiness fails until it may not'),
    );
  const cipher = createCredentialCipher(options.secretsKey ?? settings.SECRETS_KEY ?? '');
  const secrets = await openSecretStore(settings, database.db, cipher, log);
  const { runQueue, schedules } = await openScheduling(settings, log);

  return {
    database,
    db: database.db,
    maintenanceDb,
    cipher,
    secrets: secrets.store,
    runQueue,
    schedules,
    readiness,
    async close() {
      await schedules.close();
      await runQueue.close();
      await secrets.close();
      await destroyDatabases();
      redis?.disconnect();
    },
  };
}

/** ioredis, loaded only with REDIS_URL: `meerkat dev` never loads it, nor BullMQ (docs/adr/0074-dev-memory.md). */
async function connectRedis(url: string): Promise<Redis> {
  const { Redis: RedisClient } = await import('ioredis');
  return new RedisClient(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
}

/** The run queue and its schedules: in Redis (BullMQ, loaded then) with REDIS_URL, in this process without it. */
async function openScheduling(
  settings: Readonly<Settings>,
  log: Logger,
): Promise<{ runQueue: RunQueue; schedules: ScheduleStore }> {
  const retrySeconds = settings.RUN_RECORD_RETRY_SECONDS;
  if (settings.REDIS_URL === undefined) {
    const runQueue = createInProcessRunQueue({ log, retrySeconds });
    return { runQueue, schedules: createInProcessScheduleStore(runQueue) };
  }
  const [{ createBullmqRunQueue }, { createBullmqScheduleStore }] = await Promise.all([
    import('../scheduling/bullmq-run-queue.js'),
    import('../scheduling/bullmq-schedule-store.js'),
  ]);
  return {
    runQueue: createBullmqRunQueue({ redisUrl: settings.REDIS_URL, log, retrySeconds }),
    schedules: createBullmqScheduleStore({ redisUrl: settings.REDIS_URL, log }),
  };
}
