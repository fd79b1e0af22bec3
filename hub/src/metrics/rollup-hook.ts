import type { RunFinishedHook } from '../runs/run-finished.js';
import { durationBucket } from './duration-histogram.js';
import { addRunsToDays } from './day-rollup.repository.js';
import { addRunsToHours } from './hour-rollup.repository.js';
import { recordLatestRuns } from './latest-runs.repository.js';
import { addRunsToRollups } from './rollup.repository.js';
import { errorClassOfRun } from './run-error-class.js';
import { minuteOf, runTimeOf } from './time-buckets.js';

/**
 * Keeps the per-minute rollups, the hour and day rows above them, and each monitor's latest runs: one statement
 * per table for all the runs of a write. It runs inside the transaction that records the runs, and a run is
 * recorded once, so each run is counted exactly once even when its job is delivered twice.
 */
export const rollupHook: RunFinishedHook = {
  name: 'metrics-rollups',
  async onRunsFinished(tx, runs) {
    const increments = runs.map((run) => {
      const startedAt = runTimeOf(run);
      const success = run.success === true;
      return {
        organizationId: run.organization_id,
        monitorId: run.monitor_id,
        minute: minuteOf(startedAt),
        location: run.location,
        environment: run.environment,
        startedAt,
        success,
        durationMs: run.duration_ms,
        durationBucket: run.duration_ms === null ? null : durationBucket(run.duration_ms),
        errorClass: success ? null : errorClassOfRun(run.steps),
      };
    });
    await addRunsToRollups(tx, increments);
    await addRunsToHours(tx, increments);
    await addRunsToDays(tx, increments);
    await recordLatestRuns(tx, runs);
  },
};
