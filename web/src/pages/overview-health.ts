import type { MonitorMetricsRow } from '../types.js';
import { compareMonitorRows } from '../../../hub/src/metrics/monitor-row-order.js';

/** The healths the overview tells apart, failing first: the API's three and `no_data` (rowHealth). */
export const HEALTHS = ['failing', 'degraded', 'no_data', 'healthy'] as const;
export type Health = (typeof HEALTHS)[number];

export const HEALTH_LABELS: Record<Health, string> = {
  failing: 'Failing',
  degraded: 'Degraded',
  no_data: 'No data',
  healthy: 'Healthy',
};

/** Failing first, then degraded, no data and healthy; by name within each (reversed as a whole for `desc`). */
export function compareByHealth(health: (row: MonitorMetricsRow) => Health, order: 'asc' | 'desc') {
  const byName = compareMonitorRows('name', 'asc');
  const direction = order === 'asc' ? 1 : -1;
  return (a: MonitorMetricsRow, b: MonitorMetricsRow) =>
    (HEALTHS.indexOf(health(a)) - HEALTHS.indexOf(health(b)) || byName(a, b)) * direction;
}
