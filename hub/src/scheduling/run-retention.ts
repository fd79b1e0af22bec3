import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { forgetLatestRunsBefore } from '../metrics/latest-runs.repository.js';
import type { Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';
import { dropRunPartitionsBefore, ensureRunPartitions } from '../runs/run-partitions.js';
import { deleteRunsBefore } from '../runs/run.repository.js';

const RETENTION_BATCH = 1000;

/**
 * Deletes runs older than the retention: whole day partitions that ended before it (docs/adr/0021), then, in small
 * batches yielding between them, the rows of runs_default that are older (days that had no partition). A day that
 * straddles the cutoff is kept until it has passed, so a run is kept between `retentionDays` and one day more.
 */
export async function deleteExpiredRuns(options: { db: Db; clock: Clock; retentionDays: number }) {
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

/**
 * The scheduler's care of the runs table, every interval: the day partitions of the coming week made, and the
 * runs past `retentionDays` deleted. Safe in several replicas (making and dropping a partition twice is a no-op).
 */
export function startRunRetention(options: {
  db: Db;
  clock: Clock;
  log: Logger;
  retentionDays: number;
  intervalMs: number;
}): Periodic {
  return startPeriodic(
    async () => {
      await ensureRunPartitions(options.db, options.clock.now());
      await deleteExpiredRuns(options);
    },
    options.intervalMs,
    (error) => options.log.error({ err: error }, 'run retention failed'),
  );
}
