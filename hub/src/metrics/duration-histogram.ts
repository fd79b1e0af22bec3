/**
 * A fixed log-scale histogram of run durations: bucket 0 holds durations under 1 ms, bucket i >= 1 holds
 * [GROWTH^(i-1), GROWTH^i) ms. A percentile is reported as the geometric middle of its bucket, clamped to the
 * observed minimum and maximum, so it is within sqrt(GROWTH) - 1 (under 1%) of the true value (docs/metrics.md).
 */
export const HISTOGRAM_GROWTH = 1.02;
const LOG_GROWTH = Math.log(HISTOGRAM_GROWTH);

/** Bucket index -> count; sparse, as stored in the rollups. */
export type DurationBuckets = Record<string, number>;

export function durationBucket(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  return Math.floor(Math.log(durationMs) / LOG_GROWTH) + 1;
}

function bucketMiddle(bucket: number): number {
  if (bucket === 0) return 0.5;
  return Math.exp((bucket - 0.5) * LOG_GROWTH);
}

export interface PercentileBounds {
  minMs: number;
  maxMs: number;
}

/**
 * The q-quantile (0 < q <= 1) by nearest rank: the duration of the ceil(q * n)-th fastest run, read from its
 * bucket. 0 when there are no durations.
 */
export function bucketPercentile(buckets: DurationBuckets, q: number, bounds: PercentileBounds): number {
  const entries = Object.entries(buckets)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a - b);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [bucket, count] of entries) {
    seen += count;
    if (seen >= rank) return roundMs(Math.min(bounds.maxMs, Math.max(bounds.minMs, bucketMiddle(bucket))));
  }
  return roundMs(bounds.maxMs);
}

/** Adds `more` into `into`. */
export function mergeBuckets(into: DurationBuckets, more: DurationBuckets): DurationBuckets {
  for (const [bucket, count] of Object.entries(more)) into[bucket] = (into[bucket] ?? 0) + count;
  return into;
}

/** Durations are reported to 0.01 ms. */
export function roundMs(value: number): number {
  return Math.round(value * 100) / 100;
}
