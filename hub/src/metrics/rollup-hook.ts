import { lookUpMutes, type MutableRun } from '../maintenance/mutes.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import type { RunRow } from '../runs/run.repository.js';
import { durationBucket } from './duration-histogram.js';
import { addRunsToDays } from './day-rollup.repository.js';
import { addRunsToHours } from './hour-rollup.repository.js';
import { recordLatestRuns } from './latest-runs.repository.js';
import { enterRollupWrite } from './rollup-fold.repository.js';
import { addRunsToRollups } from './rollup.repository.js';
import { errorClassOfRun } from './run-error-class.js';
import { dayOf, hourOf, minuteOf, runTimeOf } from './time-buckets.js';

function mutableRunOf(run: RunRow): MutableRun {
  return {
    organizationId: run.organization_id,
    monitorId: run.monitor_id,
    environment: run.environment,
    location: run.location,
    at: runTimeOf(run),
  };
}

/**
 * Keeps the per-minute rollups and each monitor's latest runs: one statement per table for all the runs of a
 * write. A run's hour and day rows are summed from its minute later (`sumHoursFromMinutes`, ADR 0062); only a
 * result in an hour already summed adds itself to its hour row, and to its day row when that day is summed. It
 * runs inside the transaction that records the runs, and a run is recorded once, so each run is counted exactly
 * once even when its job is delivered twice.
 */
export const rollupHook: RunFinishedHook = {
  name: 'metrics-rollups',
  async onRunsFinished(tx, runs) {
    // A run inside a maintenance window that excludes it counts in no figure: the state before the window carries
    // through it (docs/adr/0033-silences-and-maintenance-windows.md). It is still each monitor's latest run.
    const mutes = await lookUpMutes(tx, runs.map(mutableRunOf));
    const counted = runs.filter((run) => mutes.muteOf(mutableRunOf(run))?.excludedFromFigures !== true);
    const increments = counted.map((run) => {
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
    const summedUntil = await enterRollupWrite(tx);
    await addRunsToRollups(tx, increments);
    await addRunsToHours(
      tx,
      increments.filter((run) => hourOf(run.minute) < summedUntil),
    );
    await addRunsToDays(
      tx,
      increments.filter((run) => dayOf(run.minute) < dayOf(summedUntil)),
    );
    await recordLatestRuns(tx, runs);
  },
};
