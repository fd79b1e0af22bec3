import type { Db } from '../db/database.js';
import { withDeadline } from '../system/dependency-errors.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';
import type { DeliveryQueue } from './delivery-queue.js';
import {
  countPendingDeliveries,
  deleteDeliveries,
  deliveryOf,
  lockPendingDeliveries,
} from './notification-outbox.repository.js';

/** Rows handed over per transaction: one drain after a commit rarely has more than a few. */
const DRAIN_BATCH = 100;
/**
 * How long handing one row to the queue may wait. BullMQ's connection waits for a Redis that is away rather than
 * failing (maxRetriesPerRequest null), so a drain would otherwise hold its transaction, and the rows it locked,
 * until Redis came back. Given up, the rows stay for the sweep; the late add, if any, is deduplicated by jobId.
 */
const ENQUEUE_DEADLINE_MS = 2_000;
/**
 * How often the sweep hands over rows that no drain after a commit did: Redis was away, or the process died
 * between the commit and its drain. A constant rather than a setting: it only bounds how late such a
 * notification goes out after Redis is back, and the pass is one indexed query on a table that is nearly always
 * empty, so there is nothing for an operator to trade against.
 */
const OUTBOX_SWEEP_MS = 5_000;

/**
 * Hands the pending outbox rows to the delivery queue, oldest first, and deletes them in the same transaction.
 * Rows are locked with SKIP LOCKED, so two drains (the one after a commit and a sweep, or two processes) never
 * hand over the same row; a drain that fails or dies leaves its rows to the next. The queue deduplicates by
 * `deliveryJobId`, so a row enqueued by a drain that then failed to commit is still delivered once. Resolves
 * with the rows handed over.
 */
export async function drainNotificationOutbox(db: Db, deliveries: DeliveryQueue): Promise<number> {
  let handed = 0;
  for (;;) {
    const rows = await db.transaction().execute(async (tx) => {
      const batch = await lockPendingDeliveries(tx, DRAIN_BATCH);
      for (const row of batch)
        await withDeadline('redis', ENQUEUE_DEADLINE_MS, () => deliveries.enqueue(deliveryOf(row)));
      await deleteDeliveries(
        tx,
        batch.map((row) => row.id),
      );
      return batch.length;
    });
    handed += rows;
    if (rows < DRAIN_BATCH) return handed;
  }
}

/**
 * Drains the outbox every OUTBOX_SWEEP_MS, then tells `onDepth` how many rows are still waiting (a drain that
 * failed, or rows other processes are handing over at that moment).
 */
export function startNotificationOutboxSweep(options: {
  db: Db;
  deliveries: DeliveryQueue;
  onError: (error: unknown) => void;
  onDepth?: (rows: number) => void;
  /** Default OUTBOX_SWEEP_MS; tests pass a shorter one. */
  intervalMs?: number;
}): Periodic {
  const { db, deliveries, onDepth } = options;
  return startPeriodic(
    async () => {
      try {
        await drainNotificationOutbox(db, deliveries);
      } finally {
        if (onDepth !== undefined) onDepth(await countPendingDeliveries(db));
      }
    },
    options.intervalMs ?? OUTBOX_SWEEP_MS,
    options.onError,
  );
}
