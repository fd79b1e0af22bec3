import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { Db } from '../db/database.js';
import { recordRunResult, type RunFinishedHook } from '../runs/run-finished.js';
import { findStuckRuns, type RunRow } from '../runs/run.repository.js';
import { systemFailureError } from '../runs/system-failure.js';
import { systemClock, type Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';

const REAPER_GRACE_MS = 30_000;
const PENDING_LIMIT_MS = 60 * 60 * 1000;

const stuckReason: Record<'pending' | 'running', string> = {
  running: systemFailureError('still running after its timeout (the worker stopped or lost it)'),
  pending: systemFailureError('no worker started it (is a worker serving its location?)'),
};

/**
 * Fails runs stuck past their timeout, so nothing stays `running` forever. Each goes through the same
 * recording as any finished run, so its rollups and notification rules follow. Safe in every replica: a run is
 * finished once, whoever gets there first.
 */
export async function reapStuckRuns(options: {
  db: Db;
  clock: Clock;
  log: Logger;
  runTimeoutMs: number;
  hooks?: readonly RunFinishedHook[];
}): Promise<RunRow[]> {
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

/** The reaper as a worker runs it: RUN_TIMEOUT_MS, every REAPER_INTERVAL_SECONDS, on the system clock. */
export function startRunReaper(options: {
  settings: Readonly<Settings>;
  db: Db;
  log: Logger;
  hooks: readonly RunFinishedHook[];
}): Periodic {
  const { settings, db, log, hooks } = options;
  return startPeriodic(
    () => reapStuckRuns({ db, clock: systemClock, log, runTimeoutMs: settings.RUN_TIMEOUT_MS, hooks }),
    settings.REAPER_INTERVAL_SECONDS * 1000,
    (error) => log.error({ err: error }, 'run reaper failed'),
  );
}
