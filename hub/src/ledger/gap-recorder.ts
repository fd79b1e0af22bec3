import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { SlotGap } from './slot-gap.js';
import { recordGaps } from './slot-gap.repository.js';

/** Gaps per statement. */
const WRITE_BATCH = 5_000;
const DEFAULT_FLUSH_INTERVAL_MS = 1_000;
/** Gaps kept while the database is away: a few MB, hours of a saturated location's slots. */
const DEFAULT_MAX_BUFFERED = 100_000;

export interface GapRecorder {
  /** Queues gaps to be recorded; never throws, never waits for the database. */
  record(gaps: readonly SlotGap[]): void;
  /** Stops the timer and writes what is queued (once: what the database refuses then is logged as lost). */
  close(): Promise<void>;
}

function countByReason(gaps: readonly SlotGap[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const gap of gaps) counts[gap.reason] = (counts[gap.reason] ?? 0) + 1;
  return counts;
}

/**
 * A process's side of the slot ledger (docs/adr/0025-slot-ledger.md): gaps are written in batches every
 * `flushIntervalMs`, and kept in memory while the database is away, up to `maxBuffered`; past that bound they
 * are not kept, and a log line counts them (the auditor then finds those slots as `lost`).
 */
export function createGapRecorder(options: {
  db: Db;
  log: Logger;
  flushIntervalMs?: number;
  maxBuffered?: number;
}): GapRecorder {
  const { db, log } = options;
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  let buffered: SlotGap[] = [];
  let overflowed = 0;
  let failing = false;
  let flushing: Promise<void> = Promise.resolve();

  const writeBuffered = async (): Promise<boolean> => {
    while (buffered.length > 0) {
      const batch = buffered.slice(0, WRITE_BATCH);
      try {
        const inserted = await recordGaps(db, batch);
        buffered = buffered.slice(batch.length);
        log.warn(
          { reasons: countByReason(batch), inserted },
          'slots missed: recorded as gaps (counted in meerkat_slots_missed_total)',
        );
        if (failing) log.info({ kept: buffered.length }, 'gap recording works again');
        failing = false;
      } catch (error) {
        if (!failing)
          log.warn(
            { err: error, kept: buffered.length },
            'gaps not recorded yet (database away): kept, retrying',
          );
        failing = true;
        return false;
      }
    }
    return true;
  };

  const flush = (): Promise<void> => {
    flushing = flushing.then(async () => {
      if (overflowed > 0) {
        log.error(
          { lost: overflowed, maxBuffered },
          'gaps not kept: the buffer was full while the database was away',
        );
        overflowed = 0;
      }
      await writeBuffered();
    });
    return flushing;
  };

  let pending = false;
  const timer = setInterval(() => {
    if (pending) return;
    pending = true;
    void flush().finally(() => {
      pending = false;
    });
  }, options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
  timer.unref();

  return {
    record(gaps) {
      const room = Math.max(0, maxBuffered - buffered.length);
      if (gaps.length > room) overflowed += gaps.length - room;
      if (room > 0) buffered.push(...gaps.slice(0, room));
    },
    async close() {
      clearInterval(timer);
      await flush();
      if (buffered.length > 0) {
        log.error(
          { lost: buffered.length, reasons: countByReason(buffered) },
          'gaps not recorded at shutdown',
        );
        buffered = [];
      }
    },
  };
}
