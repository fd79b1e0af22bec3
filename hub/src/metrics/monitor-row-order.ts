import type { ListMonitorMetricsQuery, MonitorMetricsRow } from './metrics.schema.js';

/**
 * The orders of `GET /metrics/monitors`; ties fall back to the name, then the id, so pages are stable. The console
 * sorts the rows it has loaded with the same function (types only above: its bundle imports this file).
 */
export function compareMonitorRows(
  sort: ListMonitorMetricsQuery['sort'],
  order: ListMonitorMetricsQuery['order'],
) {
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
    // One key function for both rows: two names or two numbers.
    const primary =
      typeof ka === 'string' || typeof kb === 'string' ? String(ka).localeCompare(String(kb)) : ka - kb;
    return (
      primary * direction ||
      a.monitorName.localeCompare(b.monitorName) ||
      a.monitorId.localeCompare(b.monitorId)
    );
  };
}
