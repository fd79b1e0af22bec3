import type { Db } from '../db/database.js';
import {
  monitorKey,
  recordScheduledRun,
  recordScheduledRuns,
  type ExecutedScheduledResult,
  type RunFinishedHook,
} from '../runs/run-finished.js';
import type { DetailsAtInsert, RunRow } from '../runs/run.repository.js';
import { isDatabaseUnavailable } from '../system/dependency-errors.js';

/** How long a finished result waits for others to share its transaction, at most. */
const WRITE_WINDOW_MS = 2_000;
/** Results written in one transaction, at most. */
const MAX_BATCH = 500;
/**
 * RUN_WRITE_GATHER_MS's default (as in config/settings.ts): under load a batch starts at most this long after the
 * one before it started, unless a full batch waits (docs/adr/0082-gathered-run-writes.md).
 */
const DEFAULT_GATHER_MS = 100;

interface WaitingResult extends ExecutedScheduledResult {
  resolve(row: RunRow | undefined): void;
  reject(error: unknown): void;
}

/**
 * Writes the results of scheduled runs in batches (docs/adr/0022-batched-run-writes.md): a result waits up to
 * WRITE_WINDOW_MS for others, or until `flushAt` are waiting, then all are written in one transaction with their
 * hooks. A waiting result no longer counts among the worker's checks, only among the slots it holds (the
 * admission's `awaiting_write`, docs/adr/0044-one-door-per-concern.md). One batch is written at a time and results
 * that finish meanwhile go in the next, so under load batches grow instead of transactions; and the next starts no
 * sooner than `gatherMs` after the one before it started unless `flushAt` wait, so that at 1,000 checks a second a
 * transaction carries about a hundred results, not the dozen that finish while one commits: its statements, their
 * round trips and its commit cost per batch, not per result. Not longer: a waiting result holds its slot in the
 * admission (docs/adr/0082-gathered-run-writes.md).
 * A batch holds one run per monitor (its hooks write one row per monitor); a second run of a monitor waits for
 * the next batch. A batch the database refuses for anything but being away is written again one result at a
 * time, so a result it cannot store fails only its own run. Each caller learns its own row, `undefined` when
 * its slot already had its run, or the error that keeps its job for a retry.
 */
export function createScheduledRunWriter(
  db: Db,
  hooks: readonly RunFinishedHook[],
  {
    flushAt = MAX_BATCH,
    detailsAtInsert = 'whole',
    gatherMs = DEFAULT_GATHER_MS,
  }: {
    flushAt?: number;
    /** RUN_WRITE_GATHER_MS: the least time from one batch's start to the next's while fewer than `flushAt` wait. */
    gatherMs?: number;
    /** RUN_DETAILS_AT_INSERT (docs/adr/0072). */ detailsAtInsert?: DetailsAtInsert;
  } = {},
) {
  const full = Math.max(1, Math.min(flushAt, MAX_BATCH));
  let waiting: WaitingResult[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing = false;
  /** Ends the gathering before the next batch early, once a full batch waits. */
  let gathered: (() => void) | undefined;
  const gather = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        gathered = undefined;
        resolve();
      }, ms);
      gathered = () => {
        clearTimeout(timer);
        gathered = undefined;
        resolve();
      };
    });

  const writeOneByOne = (batch: readonly WaitingResult[]) =>
    Promise.all(
      batch.map(async (entry) => {
        try {
          entry.resolve(await recordScheduledRun(db, entry.run, entry.result, hooks, detailsAtInsert));
        } catch (error) {
          entry.reject(error);
        }
      }),
    );

  const write = async (batch: readonly WaitingResult[]) => {
    try {
      const rows = await recordScheduledRuns(db, batch, hooks, detailsAtInsert);
      batch.forEach((entry, index) => entry.resolve(rows[index]));
    } catch (error) {
      if (!isDatabaseUnavailable(error)) return writeOneByOne(batch);
      for (const entry of batch) entry.reject(error);
    }
  };

  /** The next batch: the oldest result of each monitor, up to MAX_BATCH; the rest keep waiting. */
  const takeBatch = (): WaitingResult[] => {
    const monitors = new Set<string>();
    const batch: WaitingResult[] = [];
    const later: WaitingResult[] = [];
    for (const entry of waiting) {
      const key = monitorKey(entry.run);
      if (batch.length < MAX_BATCH && !monitors.has(key)) {
        monitors.add(key);
        batch.push(entry);
      } else later.push(entry);
    }
    waiting = later;
    return batch;
  };

  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (writing) return;
    writing = true;
    try {
      while (waiting.length > 0) {
        const startedMs = Date.now();
        await write(takeBatch());
        const rest = gatherMs - (Date.now() - startedMs);
        if (waiting.length > 0 && waiting.length < full && rest > 0) await gather(rest);
      }
    } finally {
      writing = false;
    }
  };

  return {
    /** Writes a finished scheduled run with the next batch: its row, or `undefined` when the slot had one. */
    record(executed: ExecutedScheduledResult): Promise<RunRow | undefined> {
      return new Promise((resolve, reject) => {
        waiting.push({ ...executed, resolve, reject });
        if (writing) {
          if (waiting.length >= full) gathered?.();
          return;
        }
        if (waiting.length >= full) void flush();
        else timer ??= setTimeout(() => void flush(), WRITE_WINDOW_MS);
      });
    },
  };
}
