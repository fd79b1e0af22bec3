import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { NotFoundError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import { emptyTotals, fullLatencyOf, percent, periodMs, periodWindow } from './metric-figures.js';
import { latestRuns, type LatestRuns } from './latest-runs.repository.js';
import {
  consecutiveFailures,
  listMonitorsOf,
  recentFailures,
  type MonitorSummaryRow,
} from './metric-runs.repository.js';
import { fleetSnapshotOf, periodAggregates, statusOf, type FleetMonitorFigures } from './monitor-figures.js';
import type {
  HealthStatus,
  ListMonitorMetricsQuery,
  MetricsSummary,
  MonitorMetrics,
  MonitorMetricsRow,
  Period,
} from './metrics.schema.js';
import { compareMonitorRows } from './monitor-row-order.js';
import { findOverdueMonitors } from './overdue-monitors.js';
import { minuteOf } from './time-buckets.js';
import { createSnapshotCache } from '../system/snapshot-cache.js';
import { maintenanceNowOf, type MaintenanceNow } from '../maintenance/maintenance-now.js';

export interface MetricsServiceDeps {
  db: Db;
  clock: Clock;
  /** Below this success rate (percent) a monitor whose latest run passed is `degraded` (default 99). */
  successThresholdPercent: number;
  /**
   * How old the fleet endpoints' period figures may be, in percent of the period (0 computes them on every
   * request); see docs/metrics.md. Default 0.2: 7 s for 1h, 86 min for 30d.
   */
  fleetMaxAgePercent?: number;
  /**
   * MINUTE_ROLLUP_RETENTION_DAYS: a period reaching further back reads its first partial hour from hour rows
   * (docs/adr/0024-minute-rollup-retention.md). Unset, minute rollups are taken to be kept for ever.
   */
  minuteRollupRetentionDays?: number;
  /** Where a failed background refresh of the fleet figures is reported. */
  log?: Pick<Logger, 'warn'>;
}

const RECENT_FAILURES = 10;
const FAILING_MONITORS = 100;
/** Fleet snapshots kept (organization x period x environment); each holds a few figures per monitor. */
const FLEET_SNAPSHOTS = 256;
const DEFAULT_FLEET_MAX_AGE_PERCENT = 0.2;

interface FleetKey {
  organizationId: string;
  period: Period;
  environment: string | undefined;
}

const NO_FIGURES: FleetMonitorFigures = {
  runs: 0,
  successes: 0,
  failures: 0,
  p50DurationMs: 0,
  p95DurationMs: 0,
  uptimePercent: 0,
  knownSeconds: 0,
};

export function createMetricsService(deps: MetricsServiceDeps) {
  const { db, clock, successThresholdPercent, minuteRollupRetentionDays } = deps;
  const maxAgePercent = deps.fleetMaxAgePercent ?? DEFAULT_FLEET_MAX_AGE_PERCENT;
  const snapshots = createSnapshotCache({
    compute: async ({ organizationId, period, environment }: FleetKey) =>
      fleetSnapshotOf(
        await periodAggregates(
          { db, clock, minuteRollupRetentionDays },
          organizationId,
          period,
          { monitorEnvironment: environment, environment },
          { withErrorClasses: false },
        ),
      ),
    maxAgeMs: ({ period }) => (periodMs[period] * maxAgePercent) / 100,
    keyOf: ({ organizationId, period, environment }) => JSON.stringify([organizationId, period, environment]),
    now: () => clock.now().getTime(),
    maxEntries: FLEET_SNAPSHOTS,
    onRefreshError: (error) => deps.log?.warn({ err: error }, 'refreshing the fleet metrics failed'),
  });

  /**
   * Every monitor in scope with its period figures (from a snapshot at most twice the allowed age old) and
   * its status and latest runs (read now).
   */
  const readFleet = async (organizationId: string, period: Period, environment: string | undefined) => {
    const now = periodWindow(period, clock.now());
    const monitors = await listMonitorsOf(db, organizationId, { environment });
    const [snapshot, latest] = await Promise.all([
      snapshots.get({ organizationId, period, environment }),
      latestRuns(
        db,
        organizationId,
        monitors.map((m) => m.id),
        environment,
      ),
    ]);
    // Read now, like the latest runs: a window opening shows at once, not when the snapshot is refreshed.
    const maintenance = await maintenanceNowOf(
      db,
      organizationId,
      monitors.map((m) => m.id),
      now.end,
    );
    const rows = monitors.map((monitor) => {
      const figures = snapshot.monitors.get(monitor.id) ?? NO_FIGURES;
      const last = latest.get(monitor.id);
      return {
        monitor,
        figures,
        latest: last,
        status: statusOf(figures, last, now.start, successThresholdPercent),
        maintenance: maintenance.get(monitor.id),
      };
    });
    return { snapshot, rows };
  };
  /**
   * `readFleet`, shared by the requests that ask for the same fleet while it is being read: the pages of one
   * list (the console asks for ten at once) cost one read of the monitors and their latest runs, not ten.
   */
  const fleetsBeingRead = new Map<string, ReturnType<typeof readFleet>>();
  const fleet = (organizationId: string, period: Period, environment: string | undefined) => {
    const key = JSON.stringify([organizationId, period, environment]);
    let reading = fleetsBeingRead.get(key);
    if (reading === undefined) {
      reading = readFleet(organizationId, period, environment).finally(() => fleetsBeingRead.delete(key));
      fleetsBeingRead.set(key, reading);
    }
    return reading;
  };

  return {
    async monitor(
      organizationId: string,
      monitorId: string,
      query: { period: Period; environment?: string | undefined },
    ): Promise<MonitorMetrics> {
      const environment = query.environment;
      // One instant for every read, so the failures listed are those of the window the figures cover.
      const now = clock.now();
      const window = periodWindow(query.period, now);
      const [aggregates, latestById, failures, maintenance] = await Promise.all([
        periodAggregates(
          { db, clock: { now: () => now }, minuteRollupRetentionDays },
          organizationId,
          query.period,
          {
            monitorId,
            environment,
          },
        ),
        latestRuns(db, organizationId, [monitorId], environment),
        recentFailures(db, organizationId, monitorId, minuteOf(window.start), environment, RECENT_FAILURES),
        maintenanceNowOf(db, organizationId, [monitorId], now),
      ]);
      const monitor = aggregates.monitors[0];
      if (monitor === undefined) throw new NotFoundError(`monitor ${monitorId} not found`);
      const totals = aggregates.totals.get(monitor.id) ?? emptyTotals(monitor.id);
      const latest = latestById.get(monitor.id);
      return {
        monitorId: monitor.id,
        monitorName: monitor.name,
        environment: environment ?? monitor.environment,
        period: query.period,
        periodStart: window.start.toISOString(),
        periodEnd: window.end.toISOString(),
        status: statusOf(totals, latest, window.start, successThresholdPercent),
        runs: {
          total: totals.runs,
          successful: totals.successes,
          failed: totals.failures,
          successRate: percent(totals.successes, totals.runs),
        },
        latency: fullLatencyOf(totals),
        ...(aggregates.uptime.get(monitor.id) ?? { uptimePercent: 0, knownSeconds: 0 }),
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
        maintenance: maintenanceJson(maintenance.get(monitor.id)),
      };
    },

    /** Every monitor's row of `GET /metrics/monitors`, unfiltered and unsorted (the Prometheus health gauges). */
    async rows(
      organizationId: string,
      query: { period: Period; environment?: string | undefined },
    ): Promise<MonitorMetricsRow[]> {
      const { rows } = await fleet(organizationId, query.period, query.environment);
      return rows.map(rowOf);
    },

    async list(organizationId: string, query: ListMonitorMetricsQuery) {
      const { rows: figures } = await fleet(organizationId, query.period, query.environment);
      const rows = figures.filter((f) => query.status === undefined || f.status === query.status).map(rowOf);
      rows.sort(compareMonitorRows(query.sort, query.order));
      return { data: rows.slice(query.offset, query.offset + query.limit), total: rows.length };
    },

    async summary(
      organizationId: string,
      query: { period: Period; environment?: string | undefined },
    ): Promise<MetricsSummary> {
      const { environment } = query;
      const { snapshot, rows } = await fleet(organizationId, query.period, environment);
      const { window } = snapshot;
      // Figures come from a snapshot that may be minutes old; whether a monitor still runs is read now, so a
      // silent gap (schedules lost, workers down) shows at once as "no recent runs", never as passing. A failing
      // monitor stays failing: it is already what on-call looks at.
      const [overdue] = await findOverdueMonitors(db, clock.now(), organizationId);
      const failing = rows.filter((f) => f.status === 'failing');
      const noRecent = rows.filter(
        (f) =>
          f.figures.runs === 0 || (f.status !== 'failing' && overdue?.overdue.has(f.monitor.id) === true),
      );
      const streaks = await consecutiveFailures(
        db,
        organizationId,
        failing.map((f) => f.monitor.id),
        environment,
      );
      const noRecentRuns = noRecent.length;
      const known = rows.flatMap((f) => (f.figures.knownSeconds > 0 ? [f.figures.uptimePercent] : []));
      const sum = (pick: (f: FleetMonitorFigures) => number) => rows.reduce((t, f) => t + pick(f.figures), 0);
      const successful = sum((f) => f.successes);
      const total = sum((f) => f.runs);
      return {
        period: query.period,
        periodStart: window.start.toISOString(),
        periodEnd: window.end.toISOString(),
        monitors: {
          total: rows.length,
          passing: rows.length - failing.length - noRecentRuns,
          failing: failing.length,
          noRecentRuns,
        },
        runs: {
          total,
          successful,
          failed: sum((f) => f.failures),
          successRate: percent(successful, total),
        },
        latency: snapshot.latency,
        uptimePercent:
          known.length === 0 ? 0 : Math.round((known.reduce((t, u) => t + u, 0) / known.length) * 100) / 100,
        knownSeconds: sum((f) => f.knownSeconds),
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

function maintenanceJson(window: MaintenanceNow | undefined): MonitorMetrics['maintenance'] {
  if (window === undefined) return null;
  return { ...window, start: window.start.toISOString(), end: window.end.toISOString() };
}

function rowOf({
  monitor,
  figures,
  latest,
  status,
  maintenance,
}: {
  monitor: MonitorSummaryRow;
  figures: FleetMonitorFigures;
  latest: LatestRuns | undefined;
  status: HealthStatus;
  maintenance: MaintenanceNow | undefined;
}): MonitorMetricsRow {
  return {
    monitorId: monitor.id,
    monitorName: monitor.name,
    environment: monitor.environment,
    status,
    successRate: percent(figures.successes, figures.runs),
    runCount: figures.runs,
    p50DurationMs: figures.p50DurationMs,
    p95DurationMs: figures.p95DurationMs,
    lastRunAt: latest?.lastRunAt?.toISOString() ?? null,
    lastRunSuccess: latest?.lastRunAt == null ? null : latest.lastRunSuccess === true,
    lastRunId: latest?.lastRunAt == null ? null : latest.lastRunId,
    lastRunDurationMs: latest?.lastRunAt == null ? null : (latest.lastRunDurationMs ?? 0),
    lastSuccessAt: latest?.lastSuccessAt?.toISOString() ?? null,
    lastFailureAt: latest?.lastFailureAt?.toISOString() ?? null,
    maintenance: maintenanceJson(maintenance),
  };
}
