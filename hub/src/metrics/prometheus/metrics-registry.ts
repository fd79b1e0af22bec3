import { collectDefaultMetrics, Registry } from 'prom-client';

export const METRIC_PREFIX = 'meerkat_';

/**
 * One registry per process (never prom-client's global one), labelled with the process kind, so a scrape of a
 * worker says only what that worker counted and several replicas add up instead of colliding.
 */
export function createMetricsRegistry(processKind: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processKind });
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  // These three are gauges named `_total`, which `promtool check metrics` rejects; the per-type gauges
  // (`meerkat_nodejs_active_handles` and friends) carry the same figures.
  for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total'])
    registry.removeSingleMetric(`${METRIC_PREFIX}nodejs_${name}`);
  return registry;
}
