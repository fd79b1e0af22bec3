// Who creates the runner Jobs of a `job` location (docs/adr/0052-workers-dispatch-runner-jobs.md): the real
// `meerkat hub` process serves the API only and consumes no queue of a job location, so it creates no Job; the
// real `meerkat worker --locations <job location>`, under the ServiceAccount that holds the Job Role, does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import { runnerJobName } from '../../hub/src/jobs/runner-job.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import {
  createTestNamespace,
  eventually,
  kubeConfigForServiceAccount,
  type TestNamespace,
} from '../kube/test-cluster.js';
import { apiCaller } from '../metrics/live-activity.js';
import { monitorBody } from '../metrics/metrics-fixtures.js';

const jobRules = (
  parse(readFileSync(new URL('../../config/rbac/worker-runner-jobs-role.yaml', import.meta.url), 'utf8')) as {
    rules: V1PolicyRule[];
  }
).rules;

describe('the runner Jobs of a `job` location, by process', () => {
  let namespace: TestNamespace;
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let workDir: string;
  let batch: BatchV1Api;
  let env: Record<string, string>;
  const processes: MeerkatProcess[] = [];
  const admin = generateApiKey();
  const runner = generateApiKey();

  /** The clients of the test's Redis database blocked waiting for a job: BullMQ consumers. */
  const blockedConsumers = async () => {
    const redis = new Redis(redisDatabase!.url);
    try {
      const database = new URL(redisDatabase!.url).pathname.slice(1);
      const clients = String(await redis.call('CLIENT', 'LIST')).split('\n');
      return clients.filter(
        (c) => c.includes(` db=${database} `) && /\bcmd=(bzpopmin|brpoplpush|blmove)\b/.test(c),
      );
    } finally {
      redis.disconnect();
    }
  };

  beforeAll(async () => {
    namespace = await createTestNamespace('job-worker');
    const workerKubeConfig = await kubeConfigForServiceAccount(
      namespace.name,
      'meerkat-job-worker',
      jobRules,
    );
    batch = workerKubeConfig.makeApiClient(BatchV1Api);
    workDir = mkdtempSync(join(tmpdir(), 'meerkat-job-worker-'));
    const kubeconfig = join(workDir, 'job-worker.kubeconfig');
    writeFileSync(kubeconfig, workerKubeConfig.exportConfig());
    database = await createTestDatabase({ migrated: true });
    redisDatabase = await claimRedisDatabase();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisDatabase.url,
      AUTH_API_KEYS: `acme:admin:${hashApiKey(admin)},acme:service:${hashApiKey(runner)}`,
      SECRETS_KEY: 'ef'.repeat(32),
      LOCATIONS: JSON.stringify([
        { name: 'default', executor: 'worker' },
        {
          name: 'eu-west',
          executor: 'job',
          job: {
            namespace: namespace.name,
            image: 'registry.example.com/meerkat:test',
            // No runner runs here: the Jobs are only looked at.
            hubUrl: 'http://127.0.0.1:9',
            apiKeySecret: { name: 'meerkat-runner', key: 'api-key' },
            kubeconfig,
          },
        },
      ]),
    };
    processes.push(
      ...(await startMeerkatProcesses(env, [{ name: 'hub', args: ['hub'], ready: /hub API listening/ }])),
    );
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await redisDatabase?.release();
    await database?.drop();
    await namespace?.delete();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('the hub consumes no queue of the job location; a worker of that location creates the Job of its run', async () => {
    const [hub] = processes;
    const call = apiCaller(hub!.url, admin);
    const monitor = {
      ...monitorBody('in-job'),
      frequency: { every: 1, unit: 'DAY' },
      locations: ['eu-west'],
    };
    expect((await call('PUT', '/monitor/in-job', monitor)).status).toBe(201);
    const triggered = await call('POST', '/runs/trigger/in-job', { environment: 'production' });
    expect(triggered.status).toBe(201);
    const runId = ((await triggered.json()) as { data: { id: string } }).data.id;

    // `runs:eu-west` (BullMQ queue eu-west under prefix runs): its triggered run waits, and nothing consumes this
    // Redis database: a BullMQ consumer blocks on its queue (BZPOPMIN), and the hub has none. The hub is ready only
    // once every part it assembles is up, so a consumer of its own would be blocking now.
    const queue = new Queue('eu-west', { connection: { url: redisDatabase!.url }, prefix: 'runs' });
    try {
      expect(await blockedConsumers()).toEqual([]);
      expect(await queue.getJobCounts('waiting', 'prioritized')).toMatchObject({ waiting: 1 });
      expect((await batch.listNamespacedJob({ namespace: namespace.name })).items).toEqual([]);
      expect(hub!.process.output()).not.toMatch(/dispatching runner Jobs|worker consuming runs/);

      const [worker] = await startMeerkatProcesses(env, [
        { name: 'job-worker', args: ['worker', '--locations', 'eu-west'], ready: /dispatching runner Jobs/ },
      ]);
      processes.push(worker!);
      const job = await eventually(`the Job of ${runId}`, () =>
        batch.readNamespacedJob({ namespace: namespace.name, name: runnerJobName(runId) }),
      );
      expect(job.metadata?.labels).toMatchObject({
        'meerkat.dev/run': runId,
        'meerkat.dev/location': 'eu-west',
      });
      expect(worker!.process.output()).not.toMatch(/worker consuming runs/);
      expect(await queue.getJobCounts('waiting', 'prioritized')).toMatchObject({ waiting: 0 });
      expect((await blockedConsumers()).length).toBeGreaterThan(0);
    } finally {
      await queue.close();
    }
  });
});
