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

/**
 * The 95th percentile duration as the upper edge of its band (1, 2 or 5 times a power of ten milliseconds): 11 ms
 * shows as 20, 120 ms as 200. The band shown before (`previous`) is kept while the figure stays within one band of
 * it, in the band below, its own or the band above (ADR 0057): a p95 read from a few runs on a busy node moves by a
 * factor of two as easily as it crosses an edge, and a status written for each such move is churn nobody acts on.
 * Past that, a change of latency by a factor of about five, the figure's own band is shown.
 */
export function coarseP95Ms(p95DurationMs: number, previous: number | undefined): number {
  const own = P95_BANDS.findIndex((band) => p95DurationMs <= band);
  const band = own === -1 ? P95_BANDS.length - 1 : own;
  const kept = previous === undefined ? -1 : P95_BANDS.indexOf(previous);
  return kept >= 0 && Math.abs(band - kept) <= 1 ? previous! : P95_BANDS[band]!;
}
