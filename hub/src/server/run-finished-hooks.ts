import type { Registry } from 'prom-client';
import { createRunOutcomeMetrics } from '../metrics/prometheus/run-outcome-metrics.js';
import { rollupHook } from '../metrics/rollup-hook.js';
import type { RunFinishedHook } from '../runs/run-finished.js';

/**
 * What a process does after each run result it records, in this order: the rollups, the notification rules
 * (`ruleHook`), then the run outcome counters in `registry`. One list for every way a result lands in the
 * process (its worker, runner Job reports, the Job watcher), so they all count the same.
 */
export function runFinishedHooks(registry: Registry, ruleHook: RunFinishedHook): RunFinishedHook[] {
  return [rollupHook, ruleHook, createRunOutcomeMetrics(registry)];
}
