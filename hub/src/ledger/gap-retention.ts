import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import { deleteGapsBefore } from './slot-gap.repository.js';

const BATCH = 1_000;
const DAY_MS = 86_400_000;

/**
 * Deletes gaps due more than `retentionDays` ago (RUN_RETENTION_DAYS: a gap is kept as long as the run it stands
 * for would be), in batches yielding between them. The totals keep counting them. Resolves with the count deleted.
 */
export async function deleteExpiredGaps(options: {
  db: Db;
  clock: Clock;
  retentionDays: number;
}): Promise<number> {
  const before = new Date(options.clock.now().getTime() - options.retentionDays * DAY_MS);
  let deleted = 0;
  for (;;) {
    const batch = await deleteGapsBefore(options.db, before, BATCH);
    deleted += batch;
    if (batch < BATCH) return deleted;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
