import type { HandedOverResult } from './run-queue.js';

/**
 * Thrown by an executor whose check ran but whose result found the database away: the queue keeps the result
 * (in Redis, beyond the life of this worker) and hands it to `writeResults` until it is written, so a write's
 * retry never runs the check again. Its cause is the database's failure, so a queue that cannot keep results
 * retries the job as for any absent dependency.
 */
export class ResultAwaitingWriteError extends Error {
  constructor(
    readonly handedOver: HandedOverResult,
    options: { cause: unknown },
  ) {
    super('the database is away: the result waits to be written', options);
    this.name = new.target.name;
  }
}
