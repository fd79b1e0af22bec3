import { describe, expect, it } from 'vitest';
import { createRunOutcomeMetrics } from '../../hub/src/metrics/prometheus/run-outcome-metrics.js';
import type { CatalogMonitor } from '../../hub/src/metrics/prometheus/monitor-catalog.repository.js';
import { MeerkatRegistry } from '../../hub/src/system/metrics-registry.js';
import { samplesOf } from './prometheus-samples.js';

// A worker at fleet size (docs/adr/0060-run-series-exposition.md): a scrape of its per-monitor run series takes
// turns with the event loop, where prom-client wrote every sample in one, and writes the same text format.
const catalogOf = (count: number): CatalogMonitor[] =>
  Array.from({ length: count }, (_, i) => ({
    organizationId: 'acme',
    monitorId: `mon-${i}`,
    name: `mon ${i}`,
    project: 'p',
    environment: 'production',
    locations: ['default'],
  }));

describe('the run series of a worker with 5,000 monitors', () => {
  const registry = new MeerkatRegistry('worker');
  createRunOutcomeMetrics(registry, {
    read: () => Promise.resolve(catalogOf(5_000)),
    locations: ['default'],
  });

  it('lets timers run while a scrape is written', async () => {
    await registry.metrics();
    let turns = 0;
    const counting = setInterval(() => (turns += 1), 0);
    try {
      await registry.metrics();
    } finally {
      clearInterval(counting);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('has every monitor’s series at 0, each sample once, in chunks that join to the scrape', async () => {
    const chunks = await registry.metricsChunks();
    expect(chunks.length).toBeGreaterThan(10);
    const text = chunks.join('');
    expect(text).toBe(await registry.metrics());
    expect(samplesOf(text, 'meerkat_runs_total')).toHaveLength(10_000);
    expect(samplesOf(text, 'meerkat_run_duration_seconds_bucket')).toHaveLength(5_000 * 15);
    expect(samplesOf(text, 'meerkat_run_duration_seconds_count').every((s) => s.value === 0)).toBe(true);
    expect(text.match(/^# TYPE meerkat_run_duration_seconds histogram$/gm)).toHaveLength(1);
  });
});
