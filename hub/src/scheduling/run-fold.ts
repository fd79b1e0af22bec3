import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { foldCompactedRuns } from '../runs/run-fold.repository.js';
import type { Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';

/** Monitors and locations a batch folds an hour of: at a run a minute, about 3,000 runs. */
const FOLD_MONITORS = 50;
/** A pass stops after this many batches and goes on at the next tick, so a backlog never hogs the pool. */
const BATCHES_PER_PASS = 20;
const HOUR_MS = 3_600_000;

export interface RunFold {
  db: Db;
  clock: Clock;
  /** RUN_FOLD_AFTER_MINUTES: compacted runs of hours that ended longer ago than this are folded; 0 folds none. */
  foldAfterMinutes: number;
  /**
   * RUN_DETAILS_KEEP_LATEST and RUN_DETAILS_KEEP_MINUTES: when given and the compaction is on, whole passing runs
   * it would have compacted are folded too, their steps compacted as they are folded (docs/adr/0066).
   */
  details?: { keepLatest: number; keepMinutes: number };
}

/**
 * Folds compacted passing runs (docs/adr/0061-fold-old-passing-runs.md) of the hours that ended more than
 * `foldAfterMinutes` ago, in batches of one statement each (an hour of up to FOLD_MONITORS monitors and
 * locations), yielding between them. Resolves with the runs folded
 * and whether it reached the end.
 */
export async function foldPassingRuns(
  options: RunFold,
  maxBatches = Number.POSITIVE_INFINITY,
): Promise<{ folded: number; done: boolean }> {
  const { db, clock, foldAfterMinutes, details } = options;
  const cutoff = clock.now().getTime() - foldAfterMinutes * 60_000;
  const before = new Date(Math.floor(cutoff / HOUR_MS) * HOUR_MS);
  const wholeRuns =
    details === undefined || details.keepMinutes === 0
      ? undefined
      : {
          keepLatest: details.keepLatest,
          detailsBefore: new Date(clock.now().getTime() - details.keepMinutes * 60_000),
        };
  let folded = 0;
  for (let batches = 0; batches < maxBatches; batches++) {
    const batch = await foldCompactedRuns(db, { before, monitors: FOLD_MONITORS, wholeRuns });
    folded += batch.runs;
    if (batch.folds === 0 && batch.kept === 0 && batch.cleared === 0) return { folded, done: true };
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { folded, done: false };
}

/**
 * The scheduler's fold of old passing runs, every interval, beside the compaction. Safe in several replicas: a run
 * is deleted from `runs` by the statement that folds it, so two passes never fold it twice. Off when
 * `foldAfterMinutes` is 0.
 */
export function startRunFold(options: RunFold & { log: Logger; intervalMs: number }): Periodic | undefined {
  if (options.foldAfterMinutes === 0) return undefined;
  const { log } = options;
  return startPeriodic(
    async () => {
      const pass = await foldPassingRuns(options, BATCHES_PER_PASS);
      if (pass.folded > 0) log.debug({ folded: pass.folded }, 'passing runs folded');
    },
    options.intervalMs,
    (error) => log.error({ err: error }, 'folding passing runs failed'),
  );
}
