// A local HTTP target and a real worker/scheduler setup on the test Redis, for the run tests.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadSettings, type Settings } from '../../hub/src/config/settings.js';
import type { Db } from '../../hub/src/db/database.js';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';
import type { ScheduleStore } from '../../hub/src/runs/schedule-store.js';
import { createBullmqScheduleStore } from '../../hub/src/scheduling/bullmq-schedule-store.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { createInProcessScheduleStore } from '../../hub/src/scheduling/in-process-schedule-store.js';
import { createLocalSecretStore } from '../../hub/src/secrets/local-secret-store.js';
import type { SecretStore } from '../../hub/src/secrets/secret-store.js';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import type { Components } from '../../hub/src/server/components.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { getNode, monitorDefinition, statusAssertionNode } from '../harness/monitors.js';
import { LOOPBACK_CIDRS } from '../harness/egress.js';

export interface Target {
  url: string;
  /** Requests seen, with the time each arrived. */
  hits: Array<{ path: string; at: number }>;
  close(): Promise<void>;
}

/** `/ok` answers JSON at once; `/slow?ms=N` answers after N ms. */
export async function startTarget(): Promise<Target> {
  const hits: Target['hits'] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push({ path: url.pathname, at: Date.now() });
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (url.pathname === '/slow') setTimeout(answer, Number(url.searchParams.get('ms') ?? 1000));
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A BullMQ run queue under a prefix of its own (or `prefix`), so parallel test files never share queues. */
export function testRunQueue(prefix = testRedisPrefix()): RunQueue {
  return createBullmqRunQueue({
    redisUrl: testRedisUrl(),
    prefix,
    log: silentLog,
    retrySeconds: 10,
  });
}

export function workerSettings(overrides: Record<string, string> = {}): Readonly<Settings> {
  return loadSettings(
    {
      LOCATIONS: 'default,eu-west',
      REDIS_URL: testRedisUrl(),
      SECRETS_KEY: 'ab'.repeat(32),
      EGRESS_ALLOW_CIDRS: LOOPBACK_CIDRS,
      ...overrides,
    },
    'worker',
  );
}

/** The schedules beside a test run queue: the same Redis prefix, so its consumers tick them. */
export function testScheduleStore(prefix = testRedisPrefix()): ScheduleStore {
  return createBullmqScheduleStore({ redisUrl: testRedisUrl(), prefix, log: silentLog });
}

/**
 * A worker's components over the hub's database and secrets, with its own queue. A worker never reads the
 * schedules; a test that starts a scheduler passes the store of its queue's prefix (testScheduleStore). By default
 * they are an in-process store that feeds a queue of its own, which nobody consumes.
 */
export function testComponents(
  db: Db,
  runQueue: RunQueue,
  secrets?: SecretStore,
  schedules: ScheduleStore = createInProcessScheduleStore(createInProcessRunQueue({ log: silentLog })),
): Components {
  const cipher = createCredentialCipher(generateCredentialKey());
  return {
    database: { db, description: 'test database', embedded: false },
    db,
    maintenanceDb: db,
    cipher,
    secrets: secrets ?? createLocalSecretStore({ db, cipher }),
    runQueue,
    schedules,
    readiness: [],
    async close() {
      await schedules.close();
      await runQueue.close();
    },
  };
}

export const silentLog = pino({ level: 'silent' });

export function monitorAgainst(target: Target, overrides: Record<string, unknown> = {}) {
  return monitorDefinition({
    name: 'target-ok',
    frequency: { every: 1, unit: 'HOUR' },
    nodes: [getNode('get', target.url, '/ok'), statusAssertionNode('check', 'get', 200)],
    edges: [{ from: 'get', to: 'check' }],
    ...overrides,
  });
}
