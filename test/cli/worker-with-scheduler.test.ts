import { afterAll, beforeAll, describe, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import { apiCaller, startReceiver, type ApiCall, type Receiver } from '../metrics/live-activity.js';
import { expectTickingMonitorChecked } from './ticking-monitor.js';

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
    await expectTickingMonitorChecked(call, receiver, () => processes[1]!.process.output());
  }, 60_000);
});
