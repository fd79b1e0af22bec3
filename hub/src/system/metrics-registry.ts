import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { version } from './version.js';

export const METRIC_PREFIX = 'meerkat_';

/**
 * How often `nodejs_eventloop_lag_*` samples the event loop's delay. prom-client's default, 10 ms, wakes every
 * process 100 times a second: an idle process used 6.1 ms of CPU a second, against 2.2 at 100 ms and 1.5
 * without the default metrics (`npx tsx bench/idle-metrics.ts`, docs/benchmarks.md). Every process pays it,
 * busy or not; a lag that matters lasts far longer than 100 ms.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * A prom-client registry that also writes out series Meerkat keeps itself: the per-monitor run series, which
 * prom-client takes seconds of the event loop to write at fleet size (docs/adr/0057-run-series-exposition.md).
 * Every scrape and test reads it through `metrics()`, as any registry.
 */
export class MeerkatRegistry extends Registry {
  readonly #expositions: Array<() => Promise<readonly string[]>> = [];

  constructor(readonly processKind: string) {
    super();
  }

  /** Adds text in the exposition format, in chunks, rendered at each scrape after the registry's own metrics. */
  addExposition(render: () => Promise<readonly string[]>): void {
    this.#expositions.push(render);
  }

  /** The scrape as chunks of text to write in order; the metrics server writes them without joining them. */
  async metricsChunks(): Promise<string[]> {
    const chunks = [await super.metrics()];
    for (const render of this.#expositions) chunks.push('\n', ...(await render()));
    return chunks;
  }

  override async metrics(): Promise<string> {
    return (await this.metricsChunks()).join('');
  }
}

/**
 * One registry per process (never prom-client's global one), labelled with the process kind, so a scrape of a
 * worker says only what that worker counted and several replicas add up instead of colliding. prom-client's
 * default process and Node.js metrics keep their standard names (`process_cpu_seconds_total`,
 * `nodejs_heap_size_used_bytes`, ...), which generic Node.js dashboards and alerts query.
 */
export function createMetricsRegistry(processKind: string): MeerkatRegistry {
  const registry = new MeerkatRegistry(processKind);
  registry.setDefaultLabels({ process: processKind });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  new Gauge({
    name: `${METRIC_PREFIX}build_info`,
    help: 'Always 1; the version of Meerkat this process runs.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
  return registry;
}
