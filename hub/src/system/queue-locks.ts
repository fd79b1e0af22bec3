/**
 * The lock and stalled-job check of every BullMQ worker of Meerkat (runs, batches of slots, notification
 * deliveries). A worker holds each job it runs under a lock it renews every half of JOB_LOCK_MS, so a worker that
 * dies holds its jobs at most that long. Every STALLED_CHECK_MS each worker looks for jobs whose lock is gone: a
 * look marks the jobs under way, and the next moves those still marked and unlocked back to waiting. A dead
 * worker's jobs come back within about JOB_LOCK_MS + 2 × STALLED_CHECK_MS, or one interval more when a look
 * skips its turn (it comes within the millisecond the previous one's marker expires).
 *
 * BullMQ's defaults (a check every 30 s) gave a killed worker's jobs back 61 to 91 s later. The lock stays at
 * BullMQ's 30 s: a shorter one would also expire while Redis is away for less than that, and every batch in flight
 * would then run a second time once it is back.
 */
export const JOB_LOCK_MS = 30_000;
export const STALLED_CHECK_MS = 5_000;

/** The options above, as a BullMQ `Worker` takes them. */
export const queueLockOptions = { lockDuration: JOB_LOCK_MS, stalledInterval: STALLED_CHECK_MS } as const;
