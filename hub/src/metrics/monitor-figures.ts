import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import {
  emptyTotals,
  healthStatus,
  latencyOf,
  mergedLatencyOf,
  periodWindow,
  uptimePercent,
} from './metric-figures.js';
import type { LatestRuns } from './latest-runs.repository.js';
import { listMonitorsOf, type MonitorSummaryRow } from './metric-runs.repository.js';
import type { HealthStatus, Period } from './metrics.schema.js';
import { minuteOf } from './time-buckets.js';
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
  uptime: Map<string, number>;
}

/** Sums the rollups of the monitors in scope over the period ending now, with each one's uptime. */
export async function periodAggregates(
  { db, clock }: { db: Db; clock: Clock },
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
  const scope = {
    organizationId,
    fromMinute: minuteOf(window.start),
    periodStart: window.start,
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
      scope.fromMinute,
      filter.environment,
    ),
  ]);
  const uptime = new Map(
    monitors.map((m) => [m.id, uptimePercent(window, spans.get(m.id), before.get(m.id))] as const),
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
}

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
          uptimePercent: aggregates.uptime.get(totals.monitorId) ?? 0,
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
