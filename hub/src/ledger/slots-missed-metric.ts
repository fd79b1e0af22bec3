import { setTimeout as delay } from 'node:timers/promises';
import { Counter, type Registry } from 'prom-client';
import type { Db } from '../db/database.js';
import { METRIC_PREFIX } from '../system/metrics-registry.js';
import { GAP_REASONS } from './slot-gap.js';
import { readGapTotals } from './slot-gap.repository.js';

const CACHE_MS = 5_000;
/** A scrape waits this long for the read at most, then answers with the last values. */
const READ_BOUND_MS = 1_000;

/**
 * `meerkat_slots_missed_total{location,reason}`: every gap the slot ledger recorded (docs/adr/0025-slot-ledger.md),
 * read from the database's totals, so it counts what every process saw, including those gone since, and is the
 * same on every hub replica (aggregate with max(), not sum()). Read at most once per 5 s; a read that fails or
 * takes longer than a second leaves the last values in the scrape, which never fails for it. Every configured
 * location has every reason from the start, at 0, so `increase()` sees the first gap.
 */
export function registerSlotsMissedMetric(
  registry: Registry,
  db: Db,
  locations: readonly string[],
  now: () => number = Date.now,
): void {
  const totals = new Map<string, { location: string; reason: string; total: number }>();
  for (const location of locations)
    for (const reason of GAP_REASONS)
      totals.set(`${location}\u0000${reason}`, { location, reason, total: 0 });
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    reading ??= readGapTotals(db)
      .then((rows) => {
        for (const row of rows) totals.set(`${row.location}\u0000${row.reason}`, row);
      })
      .catch(() => undefined)
      .finally(() => {
        readAt = now();
        reading = undefined;
      });
    return reading;
  };
  new Counter({
    name: `${METRIC_PREFIX}slots_missed_total`,
    help: 'Due slots that got no run, by location and reason (recorded in the database; identical on every replica).',
    labelNames: ['location', 'reason'],
    registers: [registry],
    async collect() {
      if (now() - readAt >= CACHE_MS) {
        const bound = new AbortController();
        await Promise.race([
          refresh(),
          delay(READ_BOUND_MS, undefined, { signal: bound.signal }).catch(() => {}),
        ]);
        bound.abort();
      }
      this.reset();
      for (const { location, reason, total } of totals.values()) this.inc({ location, reason }, total);
    },
  });
}
