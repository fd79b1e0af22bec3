import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import { emptyTotals, healthStatus, periodWindow, uptimePercent } from './metric-figures.js';
import { latestRuns, listMonitorsOf, type LatestRuns } from './metric-runs.repository.js';
import type { Period } from './metrics.schema.js';
import { minuteOf } from './rollup-hook.js';
import { resultsBefore, sumRollups, uptimeSpans } from './rollup.repository.js';

export interface MonitorFigureFilter {
  monitorId?: string;
  /** Only monitors of this environment. */
  monitorEnvironment?: string | undefined;
  /** Only runs executed in this environment. */
  environment?: string | undefined;
}

/** Every figure of the monitors in scope over the period, from rollups plus a few raw-run lookups. */
export async function collectMonitorFigures(
  { db, clock, successThresholdPercent }: { db: Db; clock: Clock; successThresholdPercent: number },
  organizationId: string,
  period: Period,
  filter: MonitorFigureFilter,
  withUptime: boolean,
) {
  const window = periodWindow(period, clock.now());
  const monitors = await listMonitorsOf(db, organizationId, {
    monitorId: filter.monitorId,
    environment: filter.monitorEnvironment,
  });
  const ids = monitors.map((m) => m.id);
  const scope = {
    organizationId,
    fromMinute: minuteOf(window.start),
    periodStart: window.start,
    toMinute: window.end,
    monitorId: filter.monitorId,
    environment: filter.environment,
  };
  const [totals, spans, before, latest] = await Promise.all([
    sumRollups(db, scope),
    // The list does not show uptime, so it does not pay for it.
    withUptime ? uptimeSpans(db, scope, window) : new Map<string, never>(),
    withUptime
      ? resultsBefore(db, organizationId, ids, scope.fromMinute, filter.environment)
      : new Map<string, never>(),
    latestRuns(db, organizationId, ids, filter.environment),
  ]);
  const figures = monitors.map((monitor) => {
    const total = totals.get(monitor.id) ?? emptyTotals(monitor.id);
    const last: LatestRuns | undefined = latest.get(monitor.id);
    const lastInPeriod =
      last?.lastRunAt != null && last.lastRunAt >= scope.fromMinute
        ? last.lastRunSuccess === true
        : undefined;
    return {
      monitor,
      totals: total,
      latest: last,
      status: healthStatus(total, lastInPeriod, successThresholdPercent),
      uptimePercent: uptimePercent(window, spans.get(monitor.id), before.get(monitor.id)),
    };
  });
  return { window, figures };
}
