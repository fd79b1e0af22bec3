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
import { apiCaller, produceActivity, startReceiver, type Receiver } from './live-activity.js';
import { samplesOf, type Sample } from './prometheus-samples.js';

// The production shape in miniature: two hub replicas, a scheduler and a worker, as separate processes over one
// database and one Redis, with the real activity of live-activity.ts.
describe('Prometheus figures across two hub replicas, a scheduler and a worker', () => {
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let receiver: Receiver;
  let processes: MeerkatProcess[] = [];
  const scrape = async (name: string) => {
    const found = processes.find((p) => p.name === name);
    return (await fetch(found!.metricsUrl)).text();
  };
  /** Each process's samples of `series`, by process name. */
  const everywhere = async (series: string) =>
    Object.fromEntries(
      await Promise.all(
        processes.map(async (p) => [p.name, samplesOf(await scrape(p.name), series)] as const),
      ),
    ) as Record<string, Sample[]>;
  const total = (samples: Record<string, Sample[]>, keep: (s: Sample) => boolean = () => true) =>
    Object.values(samples)
      .flat()
      .filter(keep)
      .reduce((sum, s) => sum + s.value, 0);

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
        { name: 'hub-a', args: ['hub'], ready: /hub API listening/ },
        { name: 'hub-b', args: ['hub'], ready: /hub API listening/ },
        { name: 'scheduler', args: ['scheduler'], ready: /scheduler running/ },
        { name: 'worker', args: ['worker', '--locations', 'default'], ready: /worker consuming runs/ },
      ],
    );
    const [hubA, hubB] = processes.map((p) => p.url) as [string, string];
    await produceActivity(apiCaller(hubA, key), receiver);
    // The API of either replica sees the same data.
    expect((await apiCaller(hubB, key)('GET', '/monitor/ticking')).status).toBe(200);
    await eventually(async () =>
      total(await everywhere('meerkat_notification_deliveries_total')) === 1 ? true : undefined,
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await redisDatabase?.release();
    await receiver.close();
    await database.drop();
  });

  it('every hub replica reports the same monitor health, so max() over replicas is each monitor’s health', async () => {
    const health = await everywhere('meerkat_monitor_health');
    const current = (name: string) =>
      health[name]!.filter((s) => s.value === 1)
        .map((s) => `${s.labels.monitor} ${s.labels.status}`)
        .sort();
    expect(current('hub-a')).toEqual(['refused failing', 'ticking healthy']);
    expect(current('hub-b')).toEqual(current('hub-a'));
    expect(health.scheduler).toEqual([]);
    expect(health.worker).toEqual([]);
  });

  it('only the worker counts runs and deliveries, so sum() over processes counts each once', async () => {
    const runs = await everywhere('meerkat_runs_total');
    const refused = (s: Sample) => s.labels.monitor === 'refused';
    expect(total(runs, refused)).toBe(1);
    expect(runs.worker!.filter((s) => refused(s) && s.value > 0)).toEqual([
      {
        labels: {
          organization: 'acme',
          monitor: 'refused',
          location: 'default',
          environment: 'production',
          outcome: 'failure',
          process: 'worker',
        },
        value: 1,
      },
    ]);
    const deliveries = await everywhere('meerkat_notification_deliveries_total');
    expect(deliveries.worker!.filter((s) => s.value > 0)).toEqual([
      { labels: { channel: 'webhook', result: 'success', process: 'worker' }, value: 1 },
    ]);
    for (const name of ['hub-a', 'hub-b', 'scheduler']) {
      expect(runs[name], name).toEqual([]);
      expect(deliveries[name], name).toEqual([]);
    }
  });

  it('the worker that started the scheduled runs measures how late they started', async () => {
    const delays = await everywhere('meerkat_run_schedule_delay_seconds_count');
    expect(delays.worker!.map((s) => s.labels)).toEqual([{ location: 'default', process: 'worker' }]);
    expect(delays.worker![0]!.value).toBeGreaterThanOrEqual(1);
    expect(total(delays)).toBe(delays.worker![0]!.value);
  });
});
