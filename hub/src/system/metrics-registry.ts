import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { version } from './version.js';

export const METRIC_PREFIX = 'meerkat_';

/**
 * One registry per process (never prom-client's global one), labelled with the process kind, so a scrape of a
 * worker says only what that worker counted and several replicas add up instead of colliding. prom-client's
 * default process and Node.js metrics keep their standard names (`process_cpu_seconds_total`,
 * `nodejs_heap_size_used_bytes`, ...), which generic Node.js dashboards and alerts query.
 */
export function createMetricsRegistry(processKind: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processKind });
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: `${METRIC_PREFIX}build_info`,
    help: 'Always 1; the version of Meerkat this process runs.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
  return registry;
}
