import { api, apiData } from '../api.js';
import type { MonitorHourlyRuns, MonitorMetricsRow, Period } from '../types.js';
import type { ListMonitorMetricsQuery } from '../../../hub/src/metrics/metrics.schema.js';

export interface OverviewRow extends MonitorMetricsRow {
  project: string;
}

const PAGE = 100;

/**
 * The whole organization's figures, projects and sparklines: the monitor index (projects and sparklines) and the
 * first page of figures at once, then every other page at once. Filtering or sorting them after that needs no
 * request at all.
 */
export async function loadOverview(period: Period) {
  const metricsPage = (i: number) =>
    api<{ data: MonitorMetricsRow[]; total: number }>(
      `/metrics/monitors?period=${period}&limit=${PAGE}&offset=${i * PAGE}`,
    );
  const indexLoad = apiData<MonitorHourlyRuns[]>('/metrics/hourly-runs?hours=24');
  // Its failure is reported by the Promise.all below; if the first page fails first, nobody awaits it.
  indexLoad.catch(() => undefined);
  const first = await metricsPage(0);
  // The other pages go out as soon as the first tells the total, while the index is still on its way.
  const [index, rest] = await Promise.all([
    indexLoad,
    Promise.all(Array.from({ length: Math.ceil(first.total / PAGE) - 1 }, (_, i) => metricsPage(i + 1))),
  ]);
  performance.mark('overview-api-answered');
  const byId = new Map(index.map((h) => [h.monitorId, h]));
  const rows: OverviewRow[] = [first, ...rest]
    .flatMap((p) => p.data)
    .map((m) => ({ ...m, project: byId.get(m.monitorId)?.project ?? '' }));
  return { rows, hourly: byId, loadedAt: Date.now() };
}

/** The orders GET /metrics/monitors offers, applied here to the rows already loaded. */
export type SortField = ListMonitorMetricsQuery['sort'];
