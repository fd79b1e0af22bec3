import { Counter, Histogram, type Registry } from 'prom-client';
import type { RunFinishedHook } from '../../runs/run-finished.js';
import { errorClassOfRun } from '../run-error-class.js';
import { METRIC_PREFIX } from './metrics-registry.js';

// Seconds, from 50 ms to 2 minutes (the default run timeout).
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Counts the runs this process finished, by organization, monitor id, location, environment and outcome; the
 * labels are bounded by configuration (never a run id, URL or error text). A monitor id is unique only within
 * its organization, so without `organization` two organizations' `web-1` would add up in one series. It runs in
 * the run-result transaction: a transaction that then rolls back leaves the count one high, which is rare and
 * preferable to missing runs.
 */
export function createRunOutcomeMetrics(registry: Registry): RunFinishedHook {
  const runs = new Counter({
    name: `${METRIC_PREFIX}runs_total`,
    help: 'Runs finished by this process, by outcome (success or failure).',
    labelNames: ['organization', 'monitor', 'location', 'environment', 'outcome'],
    registers: [registry],
  });
  const failures = new Counter({
    name: `${METRIC_PREFIX}run_failures_total`,
    help: 'Failed runs finished by this process, by error class.',
    labelNames: ['organization', 'monitor', 'location', 'environment', 'error_class'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${METRIC_PREFIX}run_duration_seconds`,
    help: 'Duration of the runs finished by this process.',
    labelNames: ['organization', 'monitor', 'location', 'environment'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return {
    name: 'prometheus-run-outcomes',
    onRunFinished(_tx, run) {
      const labels = {
        organization: run.organization_id,
        monitor: run.monitor_id,
        location: run.location,
        environment: run.environment,
      };
      runs.inc({ ...labels, outcome: run.success === true ? 'success' : 'failure' });
      if (run.success !== true) failures.inc({ ...labels, error_class: errorClassOfRun(run.steps) });
      if (run.duration_ms !== null) durations.observe(labels, run.duration_ms / 1000);
      return Promise.resolve();
    },
  };
}
