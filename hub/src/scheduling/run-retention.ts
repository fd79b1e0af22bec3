import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { DayPartitions } from '../db/day-partitions.js';
import { forgetLatestRunsBefore } from '../metrics/latest-runs.repository.js';
import { readHoursSummedUntil } from '../metrics/rollup-fold.repository.js';
import { minuteRollupPartitions } from '../metrics/rollup.repository.js';
import type { Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';
import { forgetFoldHoursBefore } from '../runs/run-fold.repository.js';
import { runFoldPartitions, runPartitions } from '../runs/run-partitions.js';

const RETENTION_BATCH = 1000;
const DAY_MS = 86_400_000;

interface Retention {
  db: Db;
  clock: Clock;
  retentionDays: number;
}

/**
 * Deletes a day-partitioned table's rows older than the retention: whole day partitions that ended before it, then,
 * in small batches yielding between them, the older rows of its default partition (days that had no partition). A
 * day that straddles the cutoff is kept until it has passed, so a row is kept between `retentionDays` and one day
 * more. Resolves with the cutoff and the count of default rows deleted.
 */
async function deleteExpired(
  partitions: DayPartitions,
  { db, clock, retentionDays }: Retention,
  keepFrom?: Date,
) {
  const cutoff = clock.now().getTime() - retentionDays * DAY_MS;
  const before = new Date(Math.min(cutoff, keepFrom?.getTime() ?? cutoff));
  await partitions.dropBefore(db, before);
  let deleted = 0;
  for (;;) {
    const batch = await partitions.deleteDefaultRowsBefore(db, before, RETENTION_BATCH);
    deleted += batch;
    if (batch < RETENTION_BATCH) return { before, deleted };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Deletes runs past their retention (docs/adr/0021) and the folds of old passing runs with them (docs/adr/0061),
 * and forgets them as monitors' latest runs and as hours left to fold (docs/adr/0083).
 */
export async function deleteExpiredRuns(options: Retention): Promise<number> {
  const { before, deleted } = await deleteExpired(runPartitions, options);
  const folds = await deleteExpired(runFoldPartitions, options);
  await forgetLatestRunsBefore(options.db, before);
  await forgetFoldHoursBefore(options.db, before);
  return deleted + folds.deleted;
}

/**
 * Deletes minute rollups past their retention (docs/adr/0024): hour and day rows keep what they summed. Minutes
 * from the hour the rollups are summed until are kept whatever their age, until a pass has summed them (ADR 0062).
 */
export async function deleteExpiredMinuteRollups(options: Retention): Promise<number> {
  const summedUntil = await readHoursSummedUntil(options.db);
  return (await deleteExpired(minuteRollupPartitions, options, summedUntil)).deleted;
}

/**
 * The scheduler's care of the day-partitioned tables, every interval: the day partitions of the coming week made,
 * and the runs past `retentionDays` and minute rollups past `minuteRollupRetentionDays` deleted. Safe in several
 * replicas (making and dropping a partition twice is a no-op).
 */
export function startRunRetention(options: {
  db: Db;
  clock: Clock;
  log: Logger;
  retentionDays: number;
  minuteRollupRetentionDays: number;
  intervalMs: number;
}): Periodic {
  const { db, clock, log } = options;
  // Each table on its own: a drop that waits out its lock timeout on one does not leave the other without its
  // partitions or its retention until the next pass.
  const tables = [
    {
      table: 'runs',
      care: async () => {
        await runPartitions.ensure(db, clock.now());
        await runFoldPartitions.ensure(db, clock.now());
        await deleteExpiredRuns(options);
      },
    },
    {
      table: 'run_rollups_minute',
      care: async () => {
        await minuteRollupPartitions.ensure(db, clock.now());
        await deleteExpiredMinuteRollups({ db, clock, retentionDays: options.minuteRollupRetentionDays });
      },
    },
  ];
  return startPeriodic(
    async () => {
      for (const { table, care } of tables)
        await care().catch((error: unknown) => log.error({ err: error, table }, 'run retention failed'));
    },
    options.intervalMs,
    (error) => log.error({ err: error }, 'run retention failed'),
  );
}
