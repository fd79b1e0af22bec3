// A `meerkat hub` process beside a file's test hub, on the same database, to which the tests report runs as a runner
// Job does: it records them and rolls them up into the metrics the operator reads from the test hub.
import { afterAll, beforeAll } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import { claimRedisDatabase, type ClaimedRedisDatabase } from '../harness/database.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import type { OperatorTests } from './operator-fixture.js';

/** Registers the file's hooks; the function returned sends a request to that hub as a runner. */
export function useReportingHub(setup: OperatorTests) {
  const runnerKey = generateApiKey();
  let reportingHub: MeerkatProcess | undefined;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  beforeAll(async () => {
    redisDatabase = await claimRedisDatabase();
    [reportingHub] = await startMeerkatProcesses(
      {
        DATABASE_URL: setup.hub.databaseUrl,
        REDIS_URL: redisDatabase.url,
        AUTH_API_KEYS: `acme:service:${hashApiKey(runnerKey)}`,
        SECRETS_KEY: 'ef'.repeat(32),
        LOCATIONS: 'default,eu-west,us-east',
      },
      [{ name: 'hub', args: ['hub'], ready: /hub API listening/ }],
    );
  });
  afterAll(async () => {
    await reportingHub?.process.stop();
    await redisDatabase?.release();
  });
  return function asRunner(method: string, path: string, body?: unknown) {
    return fetch(new URL(path, reportingHub?.url), {
      method,
      headers: { authorization: `Bearer ${runnerKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
}
