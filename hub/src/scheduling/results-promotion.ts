import type { Logger } from 'pino';
import { shortReason } from '../system/dependency-errors.js';

/**
 * Results jobs (`<location>.results`) wait out a backoff of up to 30 s between tries while the database is away.
 * When it is back, a consumer that saw it away learns so from its next write that works, and moves the delayed
 * results jobs of that location on at once: the outage's runs are then recorded within seconds of the
 * database's return, not up to a backoff later (docs/operations.md, "PostgreSQL is away").
 */
export function createResultsPromotion(options: {
  /** Moves every delayed results job of `location` to waiting (BullMQ's `promoteJobs`). */
  promote(location: string): Promise<void>;
  log: Logger;
}) {
  const away = new Set<string>();
  return {
    /** A write of `location`'s results found the database away. */
    away(location: string) {
      away.add(location);
    },
    /** A write of `location` worked: if the database had been away, its waiting results go now. */
    back(location: string) {
      if (!away.delete(location)) return;
      options.promote(location).then(
        () => options.log.info({ location }, 'database back: waiting results are written now'),
        (error: unknown) => {
          // Their backoff brings them anyway; the next write that works tries again.
          away.add(location);
          options.log.warn({ location, reason: shortReason(error) }, 'waiting results not moved on');
        },
      );
    },
  };
}
