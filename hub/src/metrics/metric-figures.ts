import { mergeBuckets, bucketPercentile, roundMs, type DurationBuckets } from './duration-histogram.js';
import type { RollupTotals, UptimeSpans } from './rollup.repository.js';
import type { HealthStatus, Period } from './metrics.schema.js';

/** Pure figures from rollup totals; the definitions are in docs/metrics.md. */

export const periodMs: Record<Period, number> = {
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

export function periodWindow(period: Period, now: Date) {
  return { start: new Date(now.getTime() - periodMs[period]), end: now };
}

export const emptyTotals = (monitorId: string): RollupTotals => ({
  monitorId,
  runs: 0,
  successes: 0,
  failures: 0,
  durationCount: 0,
  durationSumMs: 0,
  durationMinMs: null,
  durationMaxMs: null,
  histogram: {},
  errorClasses: {},
});

/** Percent to two decimals; 0 when nothing was counted. */
export function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

export function latencyOf(totals: Pick<RollupTotals, 'histogram' | 'durationMinMs' | 'durationMaxMs'>) {
  const bounds = { minMs: totals.durationMinMs ?? 0, maxMs: totals.durationMaxMs ?? 0 };
  return {
    p50DurationMs: bucketPercentile(totals.histogram, 0.5, bounds),
    p95DurationMs: bucketPercentile(totals.histogram, 0.95, bounds),
    p99DurationMs: bucketPercentile(totals.histogram, 0.99, bounds),
  };
}

export function fullLatencyOf(totals: RollupTotals) {
  return {
    minDurationMs: roundMs(totals.durationMinMs ?? 0),
    avgDurationMs: totals.durationCount === 0 ? 0 : roundMs(totals.durationSumMs / totals.durationCount),
    ...latencyOf(totals),
    maxDurationMs: roundMs(totals.durationMaxMs ?? 0),
  };
}

/** Fleet latency: every monitor's histogram merged, so each run weighs the same. */
export function mergedLatencyOf(all: readonly RollupTotals[]) {
  const histogram: DurationBuckets = {};
  let minMs: number | null = null;
  let maxMs: number | null = null;
  for (const totals of all) {
    mergeBuckets(histogram, totals.histogram);
    if (totals.durationMinMs !== null) minMs = Math.min(minMs ?? Infinity, totals.durationMinMs);
    if (totals.durationMaxMs !== null) maxMs = Math.max(maxMs ?? -Infinity, totals.durationMaxMs);
  }
  return latencyOf({ histogram, durationMinMs: minMs, durationMaxMs: maxMs });
}

/**
 * failing: the latest run in the period failed; degraded: it passed but the success rate is under the
 * threshold, or there was no run in the period; healthy otherwise.
 */
export function healthStatus(
  totals: Pick<RollupTotals, 'runs' | 'successes'>,
  latestInPeriodSucceeded: boolean | undefined,
  successThresholdPercent: number,
): HealthStatus {
  if (totals.runs === 0 || latestInPeriodSucceeded === undefined) return 'degraded';
  if (!latestInPeriodSucceeded) return 'failing';
  return (totals.successes / totals.runs) * 100 < successThresholdPercent ? 'degraded' : 'healthy';
}

/**
 * A period's uptime over its known time. With none known ("no data") it is 0, as the contract's number was for a
 * monitor without runs, and `knownSeconds` 0 tells no data from down (docs/adr/0048-uptime-counts-known-time.md).
 */
export interface Uptime {
  uptimePercent: number;
  /** Seconds of the period held by a result: neither before the first one nor after a gap until the next. */
  knownSeconds: number;
}

/**
 * Time-weighted uptime over known time (docs/adr/0048-uptime-counts-known-time.md): the share of the known time
 * of the period during which the latest result was a success. A result holds until the next result or gap; a gap
 * holds "no data" until the next result; time before the first result is not known either. `resultBefore` is the
 * state the period starts in: a result, null after a gap, undefined with nothing before.
 */
export function uptimeOf(
  window: { start: Date; end: Date },
  spans: UptimeSpans | undefined,
  resultBefore: boolean | null | undefined,
): Uptime {
  const periodSeconds = (window.end.getTime() - window.start.getTime()) / 1000;
  const leadIn =
    spans === undefined ? periodSeconds : (spans.firstChangeAt.getTime() - window.start.getTime()) / 1000;
  const leadInKnown = typeof resultBefore === 'boolean' ? leadIn : 0;
  const knownSeconds = (spans?.knownSeconds ?? 0) + leadInKnown;
  const upSeconds = (spans?.upSeconds ?? 0) + (resultBefore === true ? leadIn : 0);
  return {
    uptimePercent: knownSeconds <= 0 ? 0 : percent(upSeconds, knownSeconds),
    knownSeconds: Math.round(knownSeconds),
  };
}
