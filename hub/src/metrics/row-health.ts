import { periodMs } from './metric-figures.js';
import type { HealthStatus, MonitorMetricsRow, Period } from './metrics.schema.js';

/**
 * The health a person is shown for a metrics row: `no_data` where the API says "degraded" for want of runs, so a
 * monitor that never ran (or not in the period) is not mistaken for a slow one. A run recorded after the fleet
 * figures were taken (they are cached for a share of the period) has a `lastRunAt` in the period but no count yet:
 * its own result tells the health until the figures catch up. The console's overview and the public status page
 * use it (types only above: the console's bundle imports this file).
 */
export function rowHealth(
  row: Pick<MonitorMetricsRow, 'status' | 'runCount' | 'lastRunAt' | 'lastRunSuccess'>,
  period: Period,
  now: number,
): HealthStatus | 'no_data' {
  if (row.runCount > 0) return row.status;
  const lastRun = row.lastRunAt === null ? Number.NEGATIVE_INFINITY : Date.parse(row.lastRunAt);
  if (lastRun < now - periodMs[period] || row.lastRunSuccess === null) return 'no_data';
  return row.lastRunSuccess ? 'healthy' : 'failing';
}
