import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { Db } from '../db/database.js';
import { recordRunResult, type RunFinishedHook } from '../runs/run-finished.js';
import { forgetLatestRunsBefore } from '../metrics/latest-runs.repository.js';
import { deleteRunsBefore, findStuckRuns, type RunRow } from '../runs/run.repository.js';
import { dropRunPartitionsBefore, ensureRunPartitions } from '../runs/run-partitions.js';
import { startPeriodic } from '../server/periodic.js';
import { systemClock, type Clock } from '../system/clock.js';
import { systemFailureError } from '../runs/system-failure.js';

export interface MaintenanceOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  runTimeoutMs: number;
  intervalMs: number;
  /** Set in processes that finish runs (workers): the reaper records through them. Unset: no reaping. */
  reapWithHooks?: readonly RunFinishedHook[];
  /** Unset: this process neither makes run partitions nor deletes old runs (only the scheduler does). */
  retentionDays?: number;
}

const REAPER_GRACE_MS = 30_000;
const PENDING_LIMIT_MS = 60 * 60 * 1000;
const RETENTION_BATCH = 1000;

const stuckReason: Record<'pending' | 'running', string> = {
  running: systemFailureError('still running after its timeout (the worker stopped or lost it)'),
  pending: systemFailureError('no worker started it (is a worker serving its location?)'),
};

/**
 * Fails runs stuck past their timeout, so nothing stays `running` forever. Each goes through the same
 * recording as any finished run, so its rollups and notification rules follow. Safe in every replica: a run is
 * finished once, whoever gets there first.
 */
export async function reapStuckRuns(
  options: Pick<MaintenanceOptions, 'db' | 'clock' | 'log' | 'runTimeoutMs'> & {
    hooks?: readonly RunFinishedHook[];
  },
): Promise<RunRow[]> {
  const now = options.clock.now();
  const stuck = await findStuckRuns(options.db, {
    runningBefore: new Date(now.getTime() - options.runTimeoutMs - REAPER_GRACE_MS),
    pendingBefore: new Date(now.getTime() - Math.max(PENDING_LIMIT_MS, options.runTimeoutMs * 2)),
  });
  const failed: RunRow[] = [];
  for (const run of stuck) {
    const reason = stuckReason[run.status as 'pending' | 'running'];
    const result = { success: false, errors: [reason], steps: null, completedAt: now, durationMs: null };
    const finished = await recordRunResult(options.db, run, result, options.hooks ?? []);
    if (finished !== undefined) failed.push(finished);
  }
  if (failed.length > 0)
    options.log.warn({ runs: failed.map((r) => r.id) }, 'failed runs stuck past their timeout');
  return failed;
}

/**
 * Deletes runs older than the retention: whole day partitions that ended before it (docs/adr/0021), then, in small
 * batches yielding between them, the rows of runs_default that are older (days that had no partition). A day that
 * straddles the cutoff is kept until it has passed, so a run is kept between `retentionDays` and one day more.
 */
export async function deleteExpiredRuns(
  options: Pick<MaintenanceOptions, 'db' | 'clock'> & { retentionDays: number },
) {
  const before = new Date(options.clock.now().getTime() - options.retentionDays * 86_400_000);
  await dropRunPartitionsBefore(options.db, before);
  let total = 0;
  for (;;) {
    const deleted = await deleteRunsBefore(options.db, before, RETENTION_BATCH);
    total += deleted;
    if (deleted < RETENTION_BATCH) {
      await forgetLatestRunsBefore(options.db, before);
      return total;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs the reaper (and retention) every interval until stopped; a pass never overlaps the next. */
export function startMaintenance(options: MaintenanceOptions): { stop(): Promise<void> } {
  return startPeriodic(
    async () => {
      if (options.reapWithHooks !== undefined)
        await reapStuckRuns({ ...options, hooks: options.reapWithHooks });
      if (options.retentionDays !== undefined) {
        await ensureRunPartitions(options.db, options.clock.now());
        await deleteExpiredRuns({ ...options, retentionDays: options.retentionDays });
      }
    },
    options.intervalMs,
    (error) => options.log.error({ err: error }, 'run maintenance failed'),
  );
}

/** startMaintenance as a process runs it: RUN_TIMEOUT_MS, every REAPER_INTERVAL_SECONDS, on the system clock. */
export function startProcessMaintenance(
  { settings, db, log }: { settings: Readonly<Settings>; db: Db; log: Logger },
  duties: Pick<MaintenanceOptions, 'reapWithHooks' | 'retentionDays'>,
): { stop(): Promise<void> } {
  return startMaintenance({
    db,
    clock: systemClock,
    log,
    runTimeoutMs: settings.RUN_TIMEOUT_MS,
    intervalMs: settings.REAPER_INTERVAL_SECONDS * 1000,
    ...duties,
  });
}
