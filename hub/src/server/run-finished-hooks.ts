import type { MeerkatRegistry } from '../system/metrics-registry.js';
import type { Db } from '../db/database.js';
import { listMonitorCatalog } from '../metrics/prometheus/monitor-catalog.repository.js';
import { createRunOutcomeMetrics } from '../metrics/prometheus/run-outcome-metrics.js';
import { rollupHook } from '../metrics/rollup-hook.js';
import type { RunFinishedHook } from '../runs/run-finished.js';

/**
 * What a process does after each run result it records, in this order: the rollups, the notification rules
 * (`ruleHook`), then the run outcome counters in `registry`. One list for every way a result lands in the
 * process (its worker, runner Job reports, the Job watcher), so they all count the same. The counters keep a
 * series at 0 for every monitor that runs in one of `series.locations` (the ones this process records).
 */
export function runFinishedHooks(
  registry: MeerkatRegistry,
  ruleHook: RunFinishedHook,
  series: { db: Db; locations: readonly string[] },
): RunFinishedHook[] {
  const catalog = { read: () => listMonitorCatalog(series.db), locations: series.locations };
  return [rollupHook, ruleHook, createRunOutcomeMetrics(registry, catalog)];
}
