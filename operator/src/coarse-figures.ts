// The health figures as the Monitor status shows them: coarse enough that a fleet whose health does not move
// writes no status (ADR 0054). The hub's figures move with every run (the 95th percentile of durations in whole
// milliseconds, a success rate in tenths); a person reading `kubectl get monitors` acts on a band, not on 41 vs 43 ms.

/** The success rate in whole percent, rounded down: `100%` only when every run of the period passed. */
export function coarseSuccessRate(successRate: number): string {
  return `${Math.floor(successRate + 1e-9)}%`;
}

/** 1, 2, 5, 10, 20, 50, ... milliseconds, up to 5 × 10^7 (about 14 hours, past any run’s timeout). */
const P95_BANDS: readonly number[] = Array.from({ length: 8 }, (_, power) =>
  [1, 2, 5].map((step) => step * 10 ** power),
).flat();

/** A band is kept while the figure stays within a tenth of its edges, so a figure on an edge does not flap. */
const HYSTERESIS = 0.1;

/**
 * The 95th percentile duration as the upper edge of its band (1, 2 or 5 times a power of ten milliseconds): 11 ms
 * shows as 20, 120 ms as 200. The band shown before (`previous`) is kept while the figure stays inside it widened by
 * a tenth on each side, so a p95 hovering at 100 ms does not alternate between 100 and 200.
 */
export function coarseP95Ms(p95DurationMs: number, previous: number | undefined): number {
  const kept = previous === undefined ? -1 : P95_BANDS.indexOf(previous);
  if (kept >= 0) {
    const lower = kept === 0 ? 0 : P95_BANDS[kept - 1]!;
    if (p95DurationMs > lower * (1 - HYSTERESIS) && p95DurationMs <= previous! * (1 + HYSTERESIS))
      return previous!;
  }
  return P95_BANDS.find((band) => p95DurationMs <= band) ?? P95_BANDS[P95_BANDS.length - 1]!;
}
