import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import {
  emptyTotals,
  healthStatus,
  latencyOf,
  mergedLatencyOf,
  periodWindow,
  uptimeOf,
  type Uptime,
} from './metric-figures.js';
import type { LatestRuns } from './latest-runs.repository.js';
import { listMonitorsOf, type MonitorSummaryRow } from './metric-runs.repository.js';
import type { HealthStatus, Period } from './metrics.schema.js';
import { DAY_MS, hourCeilOf, minuteOf } from './time-buckets.js';
import { resultsBefore, sumRollups, uptimeSpans, type RollupTotals } from './rollup.repository.js';

export interface MonitorFigureFilter {
  monitorId?: string;
  /** Only monitors of this environment. */
  monitorEnvironment?: string | undefined;
  /** Only runs executed in this environment. */
  environment?: string | undefined;
}

export interface PeriodWindow {
  start: Date;
  end: Date;
}

/** The figures of each monitor in scope over a period that come from the rollups (not its latest runs). */
export interface PeriodAggregates {
  window: PeriodWindow;
  monitors: MonitorSummaryRow[];
  totals: Map<string, RollupTotals>;
  uptime: Map<string, Uptime>;
}

/**
 * Where a period's rollups are read from: its start, or, for a period reaching past the minute rows kept
 * (MINUTE_ROLLUP_RETENTION_DAYS; with the default 3 days, 7d and 30d), its first whole hour, so its older edge
 * comes from hour rows (docs/adr/0024-minute-rollup-retention.md). Such a period counts the runs from that hour
 * on, and the minutes before it (under an hour) take the state that hour starts in.
 */
function readStartOf(
  window: PeriodWindow,
  minuteRollupRetentionDays: number | undefined,
): { from: Date; tier: 'minute' | 'hour' } {
  const keptSince =
    minuteRollupRetentionDays === undefined
      ? Number.NEGATIVE_INFINITY
      : window.end.getTime() - minuteRollupRetentionDays * DAY_MS;
  if (window.start.getTime() >= keptSince) return { from: window.start, tier: 'minute' };
  return { from: hourCeilOf(window.start), tier: 'hour' };
}

/** Sums the rollups of the monitors in scope over the period ending now, with each one's uptime. */
export async function periodAggregates(
  {
    db,
    clock,
    minuteRollupRetentionDays,
  }: {
    db: Db;
    clock: Clock;
    /** MINUTE_ROLLUP_RETENTION_DAYS; unset, minute rollups are taken to be kept for ever. */
    minuteRollupRetentionDays?: number | undefined;
  },
  organizationId: string,
  period: Period,
  filter: MonitorFigureFilter,
  /** The fleet snapshots keep no error classes, so they do not pay for merging them. */
  { withErrorClasses = true }: { withErrorClasses?: boolean } = {},
): Promise<PeriodAggregates> {
  const window = periodWindow(period, clock.now());
  const monitors = await listMonitorsOf(db, organizationId, {
    monitorId: filter.monitorId,
    environment: filter.monitorEnvironment,
  });
  const read = readStartOf(window, minuteRollupRetentionDays);
  const scope = {
    organizationId,
    fromMinute: minuteOf(read.from),
    periodStart: read.from,
    toMinute: window.end,
    monitorId: filter.monitorId,
    environment: filter.environment,
  };
  const [totals, spans, before] = await Promise.all([
    sumRollups(db, scope, { withErrorClasses }),
    uptimeSpans(db, scope, window),
    resultsBefore(
      db,
      organizationId,
      monitors.map((m) => m.id),
      { before: scope.fromMinute, tier: read.tier },
      filter.environment,
    ),
  ]);
  const uptime = new Map(
    monitors.map((m) => [m.id, uptimeOf(window, spans.get(m.id), before.get(m.id))] as const),
  );
  return { window, monitors, totals, uptime };
}

/** What the fleet endpoints keep of a period's aggregates: no histograms, only the figures they show. */
export interface FleetSnapshot {
  window: PeriodWindow;
  monitors: Map<string, FleetMonitorFigures>;
  /** Every monitor's histogram merged, so each run weighs the same. */
  latency: ReturnType<typeof mergedLatencyOf>;
}

export interface FleetMonitorFigures {
  runs: number;
  successes: number;
  failures: number;
  p50DurationMs: number;
  p95DurationMs: number;
  uptimePercent: number;
  knownSeconds: number;
}

const NO_UPTIME: Uptime = { uptimePercent: 0, knownSeconds: 0 };

export function fleetSnapshotOf(aggregates: PeriodAggregates): FleetSnapshot {
  const all = aggregates.monitors.map((m) => aggregates.totals.get(m.id) ?? emptyTotals(m.id));
  return {
    window: aggregates.window,
    monitors: new Map(
      all.map((totals) => {
        const { p50DurationMs, p95DurationMs } = latencyOf(totals);
        const figures = {
          runs: totals.runs,
          successes: totals.successes,
          failures: totals.failures,
          p50DurationMs,
          p95DurationMs,
          ...(aggregates.uptime.get(totals.monitorId) ?? NO_UPTIME),
        };
        return [totals.monitorId, figures] as const;
      }),
    ),
    latency: mergedLatencyOf(all),
  };
}

/**
 * The status of a monitor from its figures over the period and its latest run, which counts only when it
 * started in the period (`periodStart` is now minus the period: the latest run is always current).
 */
export function statusOf(
  figures: Pick<RollupTotals, 'runs' | 'successes'>,
  latest: LatestRuns | undefined,
  periodStart: Date,
  successThresholdPercent: number,
): HealthStatus {
  const lastInPeriod =
    latest?.lastRunAt != null && latest.lastRunAt >= minuteOf(periodStart)
      ? latest.lastRunSuccess === true
      : undefined;
  return healthStatus(figures, lastInPeriod, successThresholdPercent);
}
