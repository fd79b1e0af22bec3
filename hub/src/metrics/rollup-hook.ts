import type { RunFinishedHook } from '../runs/run-finished.js';
import { durationBucket } from './duration-histogram.js';
import { refreshMonitorDay } from './day-rollup.repository.js';
import { refreshMonitorHour } from './hour-rollup.repository.js';
import { recordLatestRun } from './latest-runs.repository.js';
import { addRunToRollup } from './rollup.repository.js';
import { errorClassOfRun } from './run-error-class.js';
import { minuteOf, runTimeOf } from './time-buckets.js';

/**
 * Keeps the per-minute rollups, the hour and day rows above them, and each monitor's latest runs. It runs inside the transaction that finishes the run, and a run finishes once,
 * so each run is counted exactly once even when its job is delivered twice.
 */
export const rollupHook: RunFinishedHook = {
  name: 'metrics-rollups',
  async onRunFinished(tx, run) {
    const startedAt = runTimeOf(run);
    const success = run.success === true;
    const minute = minuteOf(startedAt);
    await addRunToRollup(tx, {
      organizationId: run.organization_id,
      monitorId: run.monitor_id,
      minute,
      location: run.location,
      environment: run.environment,
      startedAt,
      success,
      durationMs: run.duration_ms,
      durationBucket: run.duration_ms === null ? null : durationBucket(run.duration_ms),
      errorClass: success ? null : errorClassOfRun(run.steps),
    });
    const key = {
      organizationId: run.organization_id,
      monitorId: run.monitor_id,
      environment: run.environment,
      minute,
    };
    await refreshMonitorHour(tx, key);
    await refreshMonitorDay(tx, key);
    await recordLatestRun(tx, run);
  },
};
