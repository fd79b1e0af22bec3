import { api, apiData } from '../api.js';
import type { MonitorHourlyRuns, MonitorMetricsRow, Period } from '../types.js';
import type { ListMonitorMetricsQuery } from '../../../hub/src/metrics/metrics.schema.js';

export interface OverviewRow extends MonitorMetricsRow {
  project: string;
}

const PAGE = 100;

/**
 * The whole organization's figures, projects and sparklines: the monitor index (projects and sparklines) and every
 * page of figures. Filtering or sorting them after that needs no request at all.
 */
export async function loadOverview(period: Period) {
  const metricsPage = (i: number) =>
    api<{ data: MonitorMetricsRow[]; total: number }>(
      `/metrics/monitors?period=${period}&limit=${PAGE}&offset=${i * PAGE}`,
    );
  const pagesOf = (count: number, from: number) =>
    Array.from({ length: Math.max(0, Math.ceil(count / PAGE) - from) }, (_, i) => metricsPage(from + i));
  const indexLoad = apiData<MonitorHourlyRuns[]>('/metrics/hourly-runs?hours=24');
  const firstLoad = metricsPage(0);
  // Their failures are reported by the awaits below; one failing first would leave the other unawaited.
  indexLoad.catch(() => undefined);
  firstLoad.catch(() => undefined);
  // The index lists every monitor and the first page says how many there are: whichever answers first sends the
  // other pages on their way. On a cold hub the index is the quicker, as the first page waits for the figures.
  const count = await Promise.race([indexLoad.then((index) => index.length), firstLoad.then((p) => p.total)]);
  const rest = await Promise.all(pagesOf(count, 1));
  const [index, first] = await Promise.all([indexLoad, firstLoad]);
  // A monitor added while the pages were on their way may need a page that was not asked for.
  const total = Math.max(...[first, ...rest].map((p) => p.total));
  const late = await Promise.all(pagesOf(total, 1 + rest.length));
  performance.mark('overview-api-answered');
  const byId = new Map(index.map((h) => [h.monitorId, h]));
  const rows: OverviewRow[] = [first, ...rest, ...late]
    .flatMap((p) => p.data)
    .map((m) => ({ ...m, project: byId.get(m.monitorId)?.project ?? '' }));
  return { rows, hourly: byId, loadedAt: Date.now() };
}

/** The orders GET /metrics/monitors offers, applied here to the rows already loaded. */
export type SortField = ListMonitorMetricsQuery['sort'];
