// The health figures as the Monitor status shows them: coarse enough that a fleet whose health does not move
// writes no status (ADR 0054). The hub's success rate moves in tenths with every run; a person reading
// `kubectl get monitors` acts on whole percent. Latency is not in the status at all (ADR 0063): no rounding of a
// percentile read from a few runs on a busy node holds still, so the hub's console and `meerkat get` show it.

/** The success rate in whole percent, rounded down: `100%` only when every run of the period passed. */
export function coarseSuccessRate(successRate: number): string {
  return `${Math.floor(successRate + 1e-9)}%`;
}
