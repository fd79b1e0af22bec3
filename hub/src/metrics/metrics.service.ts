import type { Db } from '../db/database.js';
import { NotFoundError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import { fullLatencyOf, latencyOf, mergedLatencyOf, percent } from './metric-figures.js';
import { consecutiveFailures, recentFailures } from './metric-runs.repository.js';
import { collectMonitorFigures, type MonitorFigureFilter } from './monitor-figures.js';
import type {
  ListMonitorMetricsQuery,
  MetricsSummary,
  MonitorMetrics,
  MonitorMetricsRow,
  Period,
} from './metrics.schema.js';
import { minuteOf } from './rollup-hook.js';

export interface MetricsServiceDeps {
  db: Db;
  clock: Clock;
  /** Below this success rate (percent) a monitor whose latest run passed is `degraded` (default 99). */
  successThresholdPercent: number;
}

const RECENT_FAILURES = 10;
const FAILING_MONITORS = 100;

export function createMetricsService({ db, clock, successThresholdPercent }: MetricsServiceDeps) {
  const figuresOf = (
    organizationId: string,
    period: Period,
    filter: MonitorFigureFilter,
    withUptime = true,
  ) =>
    collectMonitorFigures({ db, clock, successThresholdPercent }, organizationId, period, filter, withUptime);

  return {
    async monitor(
      organizationId: string,
      monitorId: string,
      query: { period: Period; environment?: string | undefined },
    ): Promise<MonitorMetrics> {
      const environment = query.environment;
      const { window, figures } = await figuresOf(organizationId, query.period, { monitorId, environment });
      const figure = figures[0];
      if (figure === undefined) throw new NotFoundError(`monitor ${monitorId} not found`);
      const { monitor, totals, latest } = figure;
      const failures = await recentFailures(
        db,
        organizationId,
        monitorId,
        minuteOf(window.start),
        environment,
        RECENT_FAILURES,
      );
      return {
        monitorId: monitor.id,
        monitorName: monitor.name,
        environment: environment ?? monitor.environment,
        period: query.period,
        periodStart: window.start.toISOString(),
        periodEnd: window.end.toISOString(),
        status: figure.status,
        runs: {
          total: totals.runs,
          successful: totals.successes,
          failed: totals.failures,
          successRate: percent(totals.successes, totals.runs),
        },
        latency: fullLatencyOf(totals),
        uptimePercent: figure.uptimePercent,
        recentFailures: failures.map((f) => ({ id: f.id, startedAt: f.at.toISOString(), errors: f.errors })),
        errorDistribution: totals.errorClasses,
        lastRun:
          latest?.lastRunId == null || latest.lastRunAt === null
            ? null
            : {
                id: latest.lastRunId,
                status: latest.lastRunStatus ?? 'failed',
                success: latest.lastRunSuccess === true,
                startedAt: latest.lastRunAt.toISOString(),
                durationMs: latest.lastRunDurationMs ?? 0,
              },
      };
    },

    async list(organizationId: string, query: ListMonitorMetricsQuery) {
      const { environment } = query;
      const { figures } = await figuresOf(
        organizationId,
        query.period,
        { monitorEnvironment: environment, environment },
        false,
      );
      const rows: MonitorMetricsRow[] = figures
        .filter((f) => query.status === undefined || f.status === query.status)
        .map(({ monitor, totals, latest, status }) => ({
          monitorId: monitor.id,
          monitorName: monitor.name,
          environment: monitor.environment,
          status,
          successRate: percent(totals.successes, totals.runs),
          runCount: totals.runs,
          p50DurationMs: latencyOf(totals).p50DurationMs,
          p95DurationMs: latencyOf(totals).p95DurationMs,
          lastRunAt: latest?.lastRunAt?.toISOString() ?? null,
          lastSuccessAt: latest?.lastSuccessAt?.toISOString() ?? null,
          lastFailureAt: latest?.lastFailureAt?.toISOString() ?? null,
        }));
      rows.sort(compareRows(query.sort, query.order));
      return { data: rows.slice(query.offset, query.offset + query.limit), total: rows.length };
    },

    async summary(
      organizationId: string,
      query: { period: Period; environment?: string | undefined },
    ): Promise<MetricsSummary> {
      const { environment } = query;
      const { window, figures } = await figuresOf(organizationId, query.period, {
        monitorEnvironment: environment,
        environment,
      });
      const failing = figures.filter((f) => f.status === 'failing');
      const streaks = await consecutiveFailures(
        db,
        organizationId,
        failing.map((f) => f.monitor.id),
        environment,
      );
      const noRecentRuns = figures.filter((f) => f.totals.runs === 0).length;
      const ran = figures.filter((f) => f.totals.runs > 0);
      const sum = (pick: (f: (typeof figures)[number]) => number) => figures.reduce((t, f) => t + pick(f), 0);
      const successful = sum((f) => f.totals.successes);
      const total = sum((f) => f.totals.runs);
      return {
        period: query.period,
        periodStart: window.start.toISOString(),
        periodEnd: window.end.toISOString(),
        monitors: {
          total: figures.length,
          passing: figures.length - failing.length - noRecentRuns,
          failing: failing.length,
          noRecentRuns,
        },
        runs: {
          total,
          successful,
          failed: sum((f) => f.totals.failures),
          successRate: percent(successful, total),
        },
        latency: mergedLatencyOf(figures.map((f) => f.totals)),
        uptimePercent:
          ran.length === 0
            ? 0
            : Math.round((ran.reduce((t, f) => t + f.uptimePercent, 0) / ran.length) * 100) / 100,
        failingMonitors: failing
          .map((f) => ({
            monitorId: f.monitor.id,
            monitorName: f.monitor.name,
            lastFailureAt: (f.latest?.lastFailureAt ?? window.end).toISOString(),
            consecutiveFailures: streaks.get(f.monitor.id) ?? 0,
          }))
          .sort(
            (a, b) =>
              b.consecutiveFailures - a.consecutiveFailures || a.monitorName.localeCompare(b.monitorName),
          )
          .slice(0, FAILING_MONITORS),
      };
    },
  };
}
export type MetricsService = ReturnType<typeof createMetricsService>;

/** Ties fall back to the name, then the id, so pages are stable. */
function compareRows(sort: ListMonitorMetricsQuery['sort'], order: ListMonitorMetricsQuery['order']) {
  const key = (row: MonitorMetricsRow): number | string =>
    sort === 'name'
      ? row.monitorName
      : sort === 'success_rate'
        ? row.successRate
        : sort === 'p95_duration_ms'
          ? row.p95DurationMs
          : row.runCount;
  const direction = order === 'asc' ? 1 : -1;
  return (a: MonitorMetricsRow, b: MonitorMetricsRow) => {
    const ka = key(a);
    const kb = key(b);
    const primary = typeof ka === 'string' ? ka.localeCompare(kb as string) : ka - (kb as number);
    return (
      primary * direction ||
      a.monitorName.localeCompare(b.monitorName) ||
      a.monitorId.localeCompare(b.monitorId)
    );
  };
}
