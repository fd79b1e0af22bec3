// The operator's own Prometheus series, in the process's registry (hub/src/metrics/prometheus/metrics-registry.ts),
// so one scrape of METRICS_PORT says how often reconciles run, fail and how long they take, and how often the
// Monitor watch restarts.
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../hub/src/metrics/prometheus/metrics-registry.js';

export interface OperatorMetrics {
  /** Runs one reconcile and counts it: every pass, the ones that threw, and its duration. */
  measure<T>(pass: () => Promise<T>): Promise<T>;
  /** Counts one restart of the Monitor watch after an error. */
  countWatchRestart(): void;
}

export function createOperatorMetrics(registry: Registry): OperatorMetrics {
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
    help: 'Times the Monitor watch ended in an error (410 Gone, API server gone) and was listed again.',
    registers: [registry],
  });
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
  };
}
