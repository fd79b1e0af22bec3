/** Parked results kept at most: past it the oldest is forgotten, and its job's retry runs the check again. */
const MAX_PARKED = 10_000;

/**
 * Results a worker could not write because the database was away, by the id of the job that carries them. The
 * queue retries the job after a backoff; the retry writes the parked result instead of running the check again,
 * so the slot is recorded with what the target answered at its time. Kept in memory only: a retry that lands on
 * another worker, or after a restart, runs the check again.
 */
export function createParkedResults<T>() {
  const entries = new Map<string, T>();
  return {
    keep(jobId: string, value: T) {
      entries.delete(jobId);
      entries.set(jobId, value);
      if (entries.size > MAX_PARKED) entries.delete(entries.keys().next().value as string);
    },
    has: (jobId: string) => entries.has(jobId),
    /** The parked result of the job, if any; it stays parked until `forget` (a write that succeeded). */
    take: (jobId: string) => entries.get(jobId),
    forget(jobId: string) {
      entries.delete(jobId);
    },
    get size() {
      return entries.size;
    },
  };
}
