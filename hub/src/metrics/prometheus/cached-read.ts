/**
 * A database read for gauges, made at most once per `maxAgeMs` however often the process is scraped: scrapes
 * in between (and concurrent ones) share the latest read. A failed read fails the scrapes that shared it only;
 * the next scrape reads again instead of serving the error.
 */
export function cachedRead<T>(read: () => Promise<T>, maxAgeMs: number, now: () => number): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (cached === undefined || now() - cached.at >= maxAgeMs) {
      const current = { at: now(), value: read() };
      current.value.catch(() => {
        if (cached === current) cached = undefined;
      });
      cached = current;
    }
    return cached.value;
  };
}
