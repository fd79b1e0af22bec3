// The operator's own Prometheus series, in the process's registry (hub/src/system/metrics-registry.ts),
// so one scrape of METRICS_PORT says how often reconciles run, fail and how long they take, whether this replica
// leads, how long the queue is, how many Monitors are in each condition, whether the hub answers, and how often
// the Monitor informer restarts (failures, 410 Gone) or resyncs (planned).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../hub/src/system/metrics-registry.js';

/** What the gauges read at scrape time. */
export interface OperatorGaugeSources {
  isLeader: () => boolean;
  queueDepth: () => number;
  /** Monitors by condition type and status, as last seen by the watch (empty on a standby). */
  conditionCounts: () => Array<{ condition: string; status: string; count: number }>;
  hubReachable: () => boolean;
}

export interface OperatorMetrics {
  /** Runs one reconcile and counts it: every pass, the ones that threw, and its duration. */
  measure<T>(pass: () => Promise<T>): Promise<T>;
  /** Counts one restart of the Monitor watch after an error. */
  countWatchRestart(): void;
  /** Counts one planned resync (every resync period). */
  countRelist(): void;
}

export function createOperatorMetrics(registry: Registry, sources?: OperatorGaugeSources): OperatorMetrics {
  const total = new Counter({
    name: `${METRIC_PREFIX}operator_reconcile_total`,
    help: 'Reconcile passes of Monitor resources, failed ones included.',
    registers: [registry],
  });
  const errors = new Counter({
    name: `${METRIC_PREFIX}operator_reconcile_errors_total`,
    help: 'Reconcile passes that failed and were scheduled for a retry.',
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRIC_PREFIX}operator_reconcile_duration_seconds`,
    help: 'Duration of one reconcile pass, hub and Kubernetes calls included.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const watchRestarts = new Counter({
    name: `${METRIC_PREFIX}operator_watch_restarts_total`,
    help: 'Times the Monitor watch ended in an error (410 Gone, API server gone) and was started again.',
    registers: [registry],
  });
  const relists = new Counter({
    name: `${METRIC_PREFIX}operator_watch_relists_total`,
    help: 'Planned resyncs of every Monitor (each OPERATOR_RESYNC_SECONDS); not failures.',
    registers: [registry],
  });
  if (sources) registerGauges(registry, sources);
  return {
    async measure(pass) {
      const end = duration.startTimer();
      total.inc();
      try {
        return await pass();
      } catch (error) {
        errors.inc();
        throw error;
      } finally {
        end();
      }
    },
    countWatchRestart: () => watchRestarts.inc(),
    countRelist: () => relists.inc(),
  };
}

function registerGauges(registry: Registry, sources: OperatorGaugeSources): void {
  new Gauge({
    name: `${METRIC_PREFIX}operator_leader`,
    help: '1 while this replica holds the Lease and runs the controller, else 0.',
    registers: [registry],
    collect() {
      this.set(sources.isLeader() ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}operator_queue_depth`,
    help: 'Monitors waiting for a reconcile worker.',
    registers: [registry],
    collect() {
      this.set(sources.queueDepth());
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}operator_hub_reachable`,
    help: '0 while the hub does not answer the operator (an outage), else 1.',
    registers: [registry],
    collect() {
      this.set(sources.hubReachable() ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}operator_monitors`,
    help: 'Monitors by condition and its status (True, False, Unknown), as the leader last saw them.',
    labelNames: ['condition', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { condition, status, count } of sources.conditionCounts())
        this.set({ condition, status }, count);
    },
  });
}
