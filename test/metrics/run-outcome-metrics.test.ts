import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { listMonitorCatalog } from '../../hub/src/metrics/prometheus/monitor-catalog.repository.js';
import {
  createRunOutcomeMetrics,
  RUN_DURATION_BUCKETS,
} from '../../hub/src/metrics/prometheus/run-outcome-metrics.js';
import { ERROR_CLASSES } from '../../hub/src/runner/run-outcome.js';
import { startTestHub, testLocations, type TestHub } from '../harness/hub.js';
import { at, monitorBody, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';
import { samplesOf } from './prometheus-samples.js';

// Monitor ids are unique only within an organization (DESIGN.md): acme and globex each have a monitor `mon-1`.
describe('the run series of two organizations that each have a monitor mon-1', () => {
  let hub: TestHub;
  let scrape: () => Promise<string>;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    const registry = createMetricsRegistry('worker');
    const catalog = { read: () => listMonitorCatalog(hub.db), locations: testLocations };
    const hooks = [rollupHook, createRunOutcomeMetrics(registry, catalog)];
    scrape = () => registry.metrics();
    await seedMonitor(hub, 'mon-1', []);
    await seedMonitor(hub, 'mon-1', [], { organization: 'globex' });
    for (const time of ['11:00', '11:05'])
      await recordKnownRun(hub.db, 'acme', 'mon-1', { at: at(time), success: true, durationMs: 200 }, hooks);
    await recordKnownRun(
      hub.db,
      'globex',
      'mon-1',
      { at: at('11:10'), success: false, durationMs: 3000, errorClass: 'timeout' },
      hooks,
    );
  });
  afterAll(async () => {
    await hub.close();
  });

  const common = { monitor: 'mon-1', location: 'default', environment: 'production', process: 'worker' };

  it('counts each organization’s runs in a series of its own', async () => {
    expect(samplesOf(await scrape(), 'meerkat_runs_total')).toEqual([
      { labels: { organization: 'acme', ...common, outcome: 'success' }, value: 2 },
      { labels: { organization: 'acme', ...common, outcome: 'failure' }, value: 0 },
      { labels: { organization: 'globex', ...common, outcome: 'success' }, value: 0 },
      { labels: { organization: 'globex', ...common, outcome: 'failure' }, value: 1 },
    ]);
  });

  it('counts the failure and times the runs under the organization they belong to', async () => {
    const text = await scrape();
    expect(samplesOf(text, 'meerkat_run_failures_total').filter((s) => s.value > 0)).toEqual([
      { labels: { organization: 'globex', ...common, error_class: 'timeout' }, value: 1 },
    ]);
    expect(samplesOf(text, 'meerkat_run_duration_seconds_count')).toEqual([
      { labels: { organization: 'acme', ...common }, value: 2 },
      { labels: { organization: 'globex', ...common }, value: 1 },
    ]);
    expect(samplesOf(text, 'meerkat_run_duration_seconds_sum')).toEqual([
      { labels: { organization: 'acme', ...common }, value: 0.4 },
      { labels: { organization: 'globex', ...common }, value: 3 },
    ]);
  });
});

// increase() in Prometheus 2.x cannot see a series' first value: a monitor's series must exist at 0 before its
// first run, and go when the monitor does.
describe('the run series of a monitor, from its creation to its deletion', () => {
  let hub: TestHub;
  let clock = 0;
  let registry: ReturnType<typeof createMetricsRegistry>;
  let hooks: ReturnType<typeof createRunOutcomeMetrics>[];
  const scrape = () => registry.metrics();
  const ofMonitor = (name: string, text: string, id: string) =>
    samplesOf(text, name).filter((s) => s.labels.monitor === id);

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    registry = createMetricsRegistry('worker');
    // This process records `default` and `eu-west`, not `us-east`.
    const catalog = { read: () => listMonitorCatalog(hub.db), locations: ['default', 'eu-west'] };
    hooks = [createRunOutcomeMetrics(registry, catalog, () => clock)];
  });
  afterAll(async () => {
    await hub.close();
  });

  it('has every outcome, error class and bucket at 0 before the first run, for the locations it records', async () => {
    const res = await hub.request('PUT', '/monitor/fresh', {
      body: { ...monitorBody('fresh'), locations: ['default', 'us-east'] },
    });
    expect(res.status).toBe(201);
    const text = await scrape();
    expect(ofMonitor('meerkat_runs_total', text, 'fresh')).toEqual([
      { labels: { organization: 'acme', ...freshLabels, outcome: 'success' }, value: 0 },
      { labels: { organization: 'acme', ...freshLabels, outcome: 'failure' }, value: 0 },
    ]);
    expect(
      ofMonitor('meerkat_run_failures_total', text, 'fresh').map((s) => [s.labels.error_class, s.value]),
    ).toEqual(ERROR_CLASSES.map((errorClass) => [errorClass, 0]));
    const buckets = ofMonitor('meerkat_run_duration_seconds_bucket', text, 'fresh');
    expect(buckets.map((s) => s.labels.le)).toEqual([...RUN_DURATION_BUCKETS.map(String), '+Inf']);
    expect(buckets.every((s) => s.value === 0 && s.labels.location === 'default')).toBe(true);
  });

  it('counts its first failure as a step from 0, and resolves a 13 ms run below 25 ms', async () => {
    await recordKnownRun(
      hub.db,
      'acme',
      'fresh',
      { at: at('11:00'), success: false, durationMs: 13, errorClass: 'timeout' },
      hooks,
    );
    const text = await scrape();
    const failures = ofMonitor('meerkat_runs_total', text, 'fresh').find(
      (s) => s.labels.outcome === 'failure',
    );
    expect(failures?.value).toBe(1);
    const buckets = ofMonitor('meerkat_run_duration_seconds_bucket', text, 'fresh');
    expect(buckets.find((s) => s.labels.le === '0.01')?.value).toBe(0);
    expect(buckets.find((s) => s.labels.le === '0.025')?.value).toBe(1);
  });

  it('drops every series of the monitor once a catalog read after its last run no longer has it', async () => {
    expect((await hub.request('DELETE', '/monitor/fresh')).status).toBe(204);
    clock += 29_000;
    expect(ofMonitor('meerkat_runs_total', await scrape(), 'fresh')).toHaveLength(2);
    clock += 2_000;
    const text = await scrape();
    for (const name of [
      'meerkat_runs_total',
      'meerkat_run_failures_total',
      'meerkat_run_duration_seconds_bucket',
    ])
      expect(ofMonitor(name, text, 'fresh'), name).toEqual([]);
  });
});

const freshLabels = { monitor: 'fresh', location: 'default', environment: 'production', process: 'worker' };

describe('meerkat_tls_cert_not_after_seconds', () => {
  let hub: TestHub;
  let registry: ReturnType<typeof createMetricsRegistry>;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    registry = createMetricsRegistry('worker');
    const catalog = { read: () => listMonitorCatalog(hub.db), locations: testLocations };
    const hooks = [rollupHook, createRunOutcomeMetrics(registry, catalog)];
    await seedMonitor(hub, 'tls-1', []);
    const tlsStep = (earliestNotAfter: string) => ({
      nodeId: 'get',
      type: 'HTTP_REQUEST',
      status: 'passed',
      tls: { version: 'TLSv1.3', verified: true, earliestNotAfter },
    });
    await recordKnownRun(
      hub.db,
      'acme',
      'tls-1',
      { at: at('11:00'), success: true, durationMs: 20, steps: [tlsStep('2027-01-01T00:00:00.000Z')] },
      hooks,
    );
    // A later run that could not connect has no facts: the last known date stays.
    await recordKnownRun(
      hub.db,
      'acme',
      'tls-1',
      { at: at('11:05'), success: false, durationMs: 20, errorClass: 'connection' },
      hooks,
    );
  });
  afterAll(async () => {
    await hub.close();
  });

  it('is the earliest notAfter of the chain per monitor and node, in Unix seconds', async () => {
    expect(samplesOf(await registry.metrics(), 'meerkat_tls_cert_not_after_seconds')).toEqual([
      {
        labels: {
          organization: 'acme',
          monitor: 'tls-1',
          location: 'default',
          environment: 'production',
          node: 'get',
          process: 'worker',
        },
        value: Date.parse('2027-01-01T00:00:00.000Z') / 1000,
      },
    ]);
  });
});
