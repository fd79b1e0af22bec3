import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { runMeerkat, startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import { apiCaller, startReceiver, type ApiCall, type Receiver } from '../metrics/live-activity.js';
import { expectTickingMonitorChecked } from './ticking-monitor.js';

// The smallest release over PostgreSQL and Redis (docs/adr/0086-worker-in-the-hub.md): one
// `meerkat hub --locations default --with-scheduler` serves the API, keeps the schedules and checks.
describe('meerkat hub --locations default --with-scheduler', () => {
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let receiver: Receiver;
  let hub: MeerkatProcess | undefined;
  let call: ApiCall;
  const settings = () => ({
    DATABASE_URL: database.url,
    REDIS_URL: redisDatabase!.url,
    SECRETS_KEY: 'cd'.repeat(32),
  });

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    redisDatabase = await claimRedisDatabase();
    receiver = await startReceiver();
    const key = generateApiKey();
    [hub] = await startMeerkatProcesses({ ...settings(), AUTH_API_KEYS: `acme:admin:${hashApiKey(key)}` }, [
      {
        name: 'hub',
        args: ['hub', '--locations', 'default', '--with-scheduler'],
        ready: /hub API listening/,
      },
    ]);
    call = apiCaller(hub!.url, key);
  }, 120_000);
  afterAll(async () => {
    await hub?.process.stop();
    await redisDatabase?.release();
    await receiver.close();
    await database.drop();
  });

  it('schedules a new monitor and checks it, with no worker or scheduler process', async () => {
    await expectTickingMonitorChecked(call, receiver, () => hub!.process.output());
    expect(hub!.process.output()).toMatch(/worker consuming runs/);
    expect(hub!.process.output()).toMatch(/scheduler running/);
  }, 60_000);

  it('refuses a location LOCATIONS does not have, naming it', async () => {
    const { code, stderr } = await runMeerkat(['hub', '--locations', 'mars'], {
      ...settings(),
      AUTH_API_KEYS: `acme:admin:${hashApiKey(generateApiKey())}`,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('meerkat hub: --locations: mars not among the locations of LOCATIONS (default)');
  }, 60_000);

  it('refuses --concurrency without --locations', async () => {
    const { code, stderr } = await runMeerkat(['hub', '--concurrency', '5'], {
      ...settings(),
      AUTH_API_KEYS: `acme:admin:${hashApiKey(generateApiKey())}`,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('meerkat hub: --concurrency needs --locations');
  }, 60_000);
});
