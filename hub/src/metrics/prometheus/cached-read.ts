import { withDeadline } from '../../system/dependency-errors.js';

/** The longest a scrape waits for a database read (a hung PostgreSQL): Prometheus' own timeout is 10 s. */
const READ_DEADLINE_MS = 2_000;

/**
 * A database read for gauges, made at most once per `maxAgeMs` however often the process is scraped: scrapes
 * in between (and concurrent ones) share the latest read. A scrape never fails on it and never waits for it
 * longer than READ_DEADLINE_MS: a read that failed or is still out answers the last value read (undefined
 * before the first one succeeded, and the gauge is left out), so `/metrics` answers 200 with what the process
 * knows while PostgreSQL is away, as `meerkat_dependency_up` says. A failed read is made again at the next scrape.
 */
export function cachedRead<T>(
  read: () => Promise<T>,
  maxAgeMs: number,
  now: () => number,
): () => Promise<T | undefined> {
  let cached: { at: number; value: Promise<T> } | undefined;
  let lastKnown: T | undefined;
  return async () => {
    if (cached === undefined || now() - cached.at >= maxAgeMs) {
      const current = { at: now(), value: read() };
      current.value.then(
        (value) => (lastKnown = value),
        () => {
          if (cached === current) cached = undefined;
        },
      );
      cached = current;
    }
    const { value } = cached;
    return withDeadline('database', READ_DEADLINE_MS, () => value).catch(() => lastKnown);
  };
}
