import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import type { MonitorMetrics } from '../../hub/src/metrics/metrics.schema.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { startMeerkatProcesses, type MeerkatProcess } from '../harness/processes.js';
import {
  apiCaller,
  createReceiverIntegration,
  startReceiver,
  type Receiver,
} from '../metrics/live-activity.js';
import { monitorBody } from '../metrics/metrics-fixtures.js';
import { samplesOf } from '../metrics/prometheus-samples.js';

// A runner Job reports its result to the hub (`PUT /runs/{id}/result`). The real `meerkat hub` process must give
// that result what a worker gives its own: rollups and latest runs, rule evaluation (the delivery is enqueued
// for the workers' notifiers) and the run counters. Here the run's location (`remote`) has no worker, so the
// test plays its runner over the API; a worker serves only `default`, and delivers the notification.
describe('a result reported through the API by a runner', () => {
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let receiver: Receiver;
  let processes: MeerkatProcess[] = [];
  let hubUrl = '';
  let hubMetricsUrl = '';
  const admin = generateApiKey();
  const runner = generateApiKey();

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    redisDatabase = await claimRedisDatabase();
    receiver = await startReceiver();
    processes = await startMeerkatProcesses(
      {
        DATABASE_URL: database.url,
        REDIS_URL: redisDatabase.url,
        AUTH_API_KEYS: `acme:admin:${hashApiKey(admin)},acme:service:${hashApiKey(runner)}`,
        SECRETS_KEY: 'ef'.repeat(32),
        LOCATIONS: 'default,remote',
      },
      [
        { name: 'hub', args: ['hub'], ready: /hub API listening/ },
        { name: 'worker', args: ['worker', '--locations', 'default'], ready: /worker consuming runs/ },
      ],
    );
    hubUrl = processes[0]!.url;
    hubMetricsUrl = processes[0]!.metricsUrl;
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await redisDatabase?.release();
    await receiver.close();
    await database.drop();
  });

  it('is rolled up, evaluated against the rules (the webhook is delivered) and counted', async () => {
    const call = apiCaller(hubUrl, admin);
    await createReceiverIntegration(call, receiver);
    const monitor = {
      ...monitorBody('remote-only'),
      frequency: { every: 1, unit: 'DAY' },
      locations: ['remote'],
      notifications: [
        { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, integration: 'receiver' },
      ],
    };
    expect((await call('PUT', '/monitor/remote-only', monitor)).status).toBe(201);
    const triggered = await call('POST', '/runs/trigger/remote-only', { environment: 'production' });
    expect(triggered.status).toBe(201);
    const runId = ((await triggered.json()) as { data: { id: string } }).data.id;

    const report = apiCaller(hubUrl, runner);
    expect((await report('POST', `/runs/${runId}/start`)).status).toBe(200);
    const result = await report('PUT', `/runs/${runId}/result`, {
      success: false,
      errors: ['get: expected status 200, got 503'],
      steps: [{ nodeId: 'get', type: 'HTTP_REQUEST', status: 'failed', errorClass: 'http' }],
      durationMs: 42,
    });
    expect(result.status).toBe(200);

    const metrics = await call('GET', '/metrics/monitors/remote-only?period=1h');
    const figures = ((await metrics.json()) as { data: MonitorMetrics }).data;
    expect(figures.runs).toEqual({ total: 1, successful: 0, failed: 1, successRate: 0 });
    expect(figures.errorDistribution).toEqual({ http: 1 });
    expect(figures.status).toBe('failing');
    expect(figures.lastRun).toMatchObject({ id: runId, success: false, durationMs: 42 });

    const scrape = await (await fetch(hubMetricsUrl)).text();
    expect(
      samplesOf(scrape, 'meerkat_runs_total').filter(
        (s) => s.labels.monitor === 'remote-only' && s.labels.outcome === 'failure',
      ),
    ).toMatchObject([{ value: 1 }]);
    await eventually(() => Promise.resolve(receiver.received.hooks === 1 ? true : undefined));
  });
});
