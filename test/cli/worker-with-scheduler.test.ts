import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import { apiCaller, startReceiver, type ApiCall, type Receiver } from '../metrics/live-activity.js';
import { monitorBody } from '../metrics/metrics-fixtures.js';

// A small release without a scheduler process (docs/adr/0067-scheduler-in-a-worker.md): `meerkat hub` and one
// `meerkat worker --with-scheduler` over one database and one Redis. Its roles share one pool
// (docs/adr/0081-fewer-postgres-backends.md): on one connection, with maintenance every second, nothing that holds
// it waits for a second one, and no query waits for it past its bound.
describe.each([
  { pool: 'its default pool', worker: {} },
  { pool: 'a pool of one connection', worker: { DATABASE_POOL_SIZE: '1', REAPER_INTERVAL_SECONDS: '1' } },
])('meerkat worker --with-scheduler on $pool', ({ worker }) => {
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let receiver: Receiver;
  let processes: MeerkatProcess[] = [];
  let call: ApiCall;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    redisDatabase = await claimRedisDatabase();
    receiver = await startReceiver();
    const key = generateApiKey();
    processes = await startMeerkatProcesses(
      {
        DATABASE_URL: database.url,
        REDIS_URL: redisDatabase.url,
        AUTH_API_KEYS: `acme:admin:${hashApiKey(key)}`,
        SECRETS_KEY: 'cd'.repeat(32),
      },
      [
        { name: 'hub', args: ['hub'], ready: /hub API listening/ },
        {
          name: 'worker',
          args: ['worker', '--locations', 'default', '--with-scheduler'],
          ready: /scheduler running/,
          env: worker,
        },
      ],
    );
    call = apiCaller(processes[0]!.url, key);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await redisDatabase?.release();
    await receiver.close();
    await database.drop();
  });

  it('schedules a new monitor and checks it, with no scheduler process', async () => {
    const ticking = {
      ...monitorBody('ticking'),
      frequency: { every: 1 / 6, unit: 'MINUTE' },
      nodes: [{ ...monitorBody('ticking').nodes[0], base: receiver.url, path: '/ok' }],
    };
    expect((await call('PUT', '/monitor/ticking', ticking)).status).toBe(201);
    const completed = await eventually(async () => {
      const answer = await call('GET', '/runs/?monitorId=ticking');
      const runs = ((await answer.json()) as { data: Array<{ status: string }> }).data;
      return runs.filter((r) => r.status === 'completed').length >= 2 ? runs : undefined;
    }, 45_000);
    expect(completed.filter((r) => r.status === 'completed').length).toBeGreaterThanOrEqual(2);
    const output = processes[1]!.process.output();
    // No query gave up waiting for a connection, and nothing (the sync, the audit, maintenance) logged an error.
    expect(output).not.toContain('timeout exceeded when trying to connect');
    expect(output).not.toContain('"level":50');
  }, 60_000);
});
