import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { createMetricsRegistry } from '../../hub/src/metrics/prometheus/metrics-registry.js';
import { createRunOutcomeMetrics } from '../../hub/src/metrics/prometheus/run-outcome-metrics.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';
import { samplesOf } from './prometheus-samples.js';

// Monitor ids are unique only within an organization (DESIGN.md): acme and globex each have a monitor `mon-1`.
describe('the run series of two organizations that each have a monitor mon-1', () => {
  let hub: TestHub;
  let scrape: () => Promise<string>;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW } });
    const registry = createMetricsRegistry('worker');
    const hooks = [rollupHook, createRunOutcomeMetrics(registry)];
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
      { labels: { organization: 'globex', ...common, outcome: 'failure' }, value: 1 },
    ]);
  });

  it('counts the failure and times the runs under the organization they belong to', async () => {
    const text = await scrape();
    expect(samplesOf(text, 'meerkat_run_failures_total')).toEqual([
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
