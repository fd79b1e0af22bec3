import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { compactPassingRuns, type CompactionCursor } from '../runs/run-compaction.repository.js';
import type { Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';

const COMPACTION_BATCH = 500;
/** A pass stops after this many batches and goes on from there at the next tick, so a backlog never hogs the pool. */
const BATCHES_PER_PASS = 20;
/**
 * How often a sweep starts again from the oldest runs not looked at: the runs kept as the latest of a monitor
 * that runs rarely (or was paused) become compactable only once newer runs came.
 */
const RESWEEP_MS = 10 * 60_000;

export interface RunDetailsCompaction {
  db: Db;
  clock: Clock;
  /** RUN_DETAILS_KEEP_LATEST: the newest passing runs of each monitor and location that keep their details. */
  keepLatest: number;
  /** RUN_DETAILS_KEEP_MINUTES: passing runs younger than this keep their details; 0 compacts none. */
  keepMinutes: number;
  /** RUN_FOLD_AFTER_MINUTES: when not 0, the runs a fold can hold are left whole for it (docs/adr/0066). */
  foldAfterMinutes?: number;
}

/**
 * Compacts passing runs (docs/adr/0050-run-details-compaction.md) in bounded batches, yielding between them, from
 * `cursor` on. Resolves with the last run looked at, whether it reached the end, and the count compacted.
 */
export async function compactRunDetails(
  options: RunDetailsCompaction,
  cursor: CompactionCursor | undefined = undefined,
  maxBatches = Number.POSITIVE_INFINITY,
): Promise<{ cursor: CompactionCursor | undefined; done: boolean; compacted: number }> {
  const { db, clock, keepLatest, keepMinutes, foldAfterMinutes = 0 } = options;
  const before = new Date(clock.now().getTime() - keepMinutes * 60_000);
  const leaveToFold = foldAfterMinutes > 0;
  let compacted = 0;
  for (let batches = 0; batches < maxBatches; batches++) {
    const batch = await compactPassingRuns(db, {
      before,
      cursor,
      keepLatest,
      batch: COMPACTION_BATCH,
      leaveToFold,
    });
    compacted += batch.compacted;
    cursor = batch.cursor;
    if (batch.examined < COMPACTION_BATCH) return { cursor, done: true, compacted };
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { cursor, done: false, compacted };
}

/**
 * The scheduler's compaction of passing runs, every interval. A sweep goes through the runs not looked at yet
 * from the oldest and then keeps up with the newest from where it got; every RESWEEP_MS it starts again from the
 * oldest, for the runs it kept as the latest of their monitor. Safe in several replicas: compacting a run twice
 * writes the same row. Off when `keepMinutes` is 0.
 */
export function startRunDetailsCompaction(
  options: RunDetailsCompaction & { log: Logger; intervalMs: number },
): Periodic | undefined {
  if (options.keepMinutes === 0) return undefined;
  const { log, clock } = options;
  let cursor: CompactionCursor | undefined;
  let sweptAt = clock.now().getTime();
  return startPeriodic(
    async () => {
      if (clock.now().getTime() - sweptAt >= RESWEEP_MS) {
        cursor = undefined;
        sweptAt = clock.now().getTime();
      }
      // At the end of the runs the cursor stays on the newest run looked at: the next pass goes on from there.
      const pass = await compactRunDetails(options, cursor, BATCHES_PER_PASS);
      cursor = pass.cursor;
      if (pass.compacted > 0) log.debug({ compacted: pass.compacted }, 'passing runs compacted');
    },
    options.intervalMs,
    (error) => log.error({ err: error }, 'run details compaction failed'),
  );
}
