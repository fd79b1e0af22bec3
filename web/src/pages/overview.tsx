import { useEffect, useMemo } from 'preact/hooks';
import { HourBars, HourTooltip } from '../components/hour-bars.js';
import { ms, percent, when } from '../format.js';
import { useLoad } from '../load.js';
import { Link, navigate, useLocation } from '../router.js';
import type { MonitorMetricsRow, Period } from '../types.js';
import { compareMonitorRows } from '../../../hub/src/metrics/monitor-row-order.js';
import { loadOverview, type SortField } from './overview-data.js';
import { Choice, HealthSummary, Pager } from './overview-controls.js';
import { compareByHealth, HEALTHS, HEALTH_LABELS, type Health } from './overview-health.js';
import { rowHealth } from '../../../hub/src/metrics/row-health.js';
import { consoleMonitorPath } from '../../../hub/src/contract/console-paths.js';

const PERIODS: Period[] = ['1h', '6h', '24h', '7d', '30d'];
/** Rows drawn at a time: a thousand rows with an hour bar each take the browser a second to lay out. */
const ROWS_PER_PAGE = 100;
/** `health` (failing first) is the console's own order and its default; the others are the metrics API's. */
const SORTS: Array<[SortField | 'health', string]> = [
  ['name', 'Name'],
  ['health', 'Health, failing first'],
  ['success_rate', 'Success rate'],
  ['p95_duration_ms', 'p95'],
  ['run_count', 'Runs'],
];

/** Every monitor of the organization with its health; the filters live in the address, so a view can be shared. */
export function OverviewPage() {
  const url = useLocation();
  const q = url.searchParams;
  const period = PERIODS.find((p) => p === q.get('period')) ?? '24h';
  const [project, environment, search] = [
    q.get('project') ?? '',
    q.get('environment') ?? '',
    q.get('q') ?? '',
  ];
  const status: Health | '' = HEALTHS.find((h) => h === q.get('status')) ?? '';
  const sort = SORTS.find(([s]) => s === q.get('sort'))?.[0] ?? 'health';
  const order = q.get('order') === 'desc' ? 'desc' : 'asc';
  const pageIndex = Math.max(0, Number.parseInt(q.get('page') ?? '0', 10) || 0);
  const [loaded] = useLoad(() => loadOverview(period), [period]);
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(q);
    if (value === '') next.delete(name);
    else next.set(name, value);
    // Another filter or order starts again at the first page.
    if (name !== 'page') next.delete('page');
    navigate(`/ui/?${next.toString()}`, true);
  };

  const data = loaded.state === 'ready' ? loaded.data : undefined;
  const health = useMemo(() => {
    const byId = new Map(
      (data?.rows ?? []).map((r) => [r.monitorId, rowHealth(r, period, data?.loadedAt ?? 0)]),
    );
    return (r: MonitorMetricsRow) => byId.get(r.monitorId) ?? 'no_data';
  }, [data, period]);
  // Project, environment and name narrow the fleet; the health strip counts what they leave and filters it.
  const narrowed = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (data?.rows ?? []).filter(
      (r) =>
        (project === '' || r.project === project) &&
        (environment === '' || r.environment === environment) &&
        (needle === '' || r.monitorName.toLowerCase().includes(needle)),
    );
  }, [data, project, environment, search]);
  const counts = useMemo(() => {
    const all = Object.fromEntries(HEALTHS.map((h) => [h, 0])) as Record<Health, number>;
    for (const r of narrowed) all[health(r)] += 1;
    return all;
  }, [narrowed, health]);
  const shown = useMemo(
    () =>
      narrowed
        .filter((r) => status === '' || health(r) === status)
        .sort(sort === 'health' ? compareByHealth(health, order) : compareMonitorRows(sort, order)),
    [narrowed, health, status, sort, order],
  );
  useEffect(() => {
    if (data !== undefined) {
      performance.mark('overview-interactive');
      document.title = 'Monitors · Meerkat';
    }
  }, [data]);

  if (loaded.state === 'failed')
    return <p role="alert">The monitors could not be loaded: {loaded.error.message}</p>;
  const distinct = (pick: (r: { project: string; environment: string }) => string) =>
    [...new Set((data?.rows ?? []).map(pick))].sort().map((v): [string, string] => [v, v]);
  return (
    <section>
      <h1>Monitors</h1>
      <form class="filters" aria-label="Filter and sort" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="search">Name</label>
          <input
            id="search"
            type="search"
            placeholder="Search by name"
            value={search}
            onInput={(e) => set('q', e.currentTarget.value)}
          />
        </div>
        <Choice
          id="period"
          label="Period"
          value={period}
          options={PERIODS.map((p) => [p, p])}
          onChange={(v) => set('period', v)}
        />
        <Choice
          id="project"
          label="Project"
          value={project}
          options={[['', 'All'], ...distinct((r) => r.project)]}
          onChange={(v) => set('project', v)}
        />
        <Choice
          id="environment"
          label="Environment"
          value={environment}
          options={[['', 'All'], ...distinct((r) => r.environment)]}
          onChange={(v) => set('environment', v)}
        />
        <Choice id="sort" label="Sort by" value={sort} options={SORTS} onChange={(v) => set('sort', v)} />
        <Choice
          id="order"
          label="Order"
          value={order}
          options={[
            ['asc', 'Ascending'],
            ['desc', 'Descending'],
          ]}
          onChange={(v) => set('order', v)}
        />
      </form>
      {data === undefined ? (
        <p role="status">Loading the monitors…</p>
      ) : (
        <>
          <HealthSummary counts={counts} selected={status} onSelect={(h) => set('status', h)} />
          <table class="overview">
            <caption role="status">
              {shown.length} of {data.rows.length} monitors, figures over {period}
            </caption>
            <thead>
              <tr>
                <th scope="col">Monitor</th>
                <th scope="col">Project</th>
                <th scope="col">Environment</th>
                <th scope="col">Health</th>
                <th scope="col">Success rate</th>
                <th scope="col">p95</th>
                <th scope="col">Last run</th>
                <th scope="col">Last 24 h</th>
              </tr>
            </thead>
            <tbody>
              {shown.slice(pageIndex * ROWS_PER_PAGE, (pageIndex + 1) * ROWS_PER_PAGE).map((r) => (
                <tr key={r.monitorId}>
                  <th scope="row">
                    <Link href={consoleMonitorPath(r.monitorId)}>{r.monitorName}</Link>
                  </th>
                  <td>{r.project}</td>
                  <td>{r.environment}</td>
                  <td>
                    <span class={`badge ${health(r)}`}>{HEALTH_LABELS[health(r)].toLowerCase()}</span>
                  </td>
                  <td>{r.runCount === 0 ? '—' : percent(r.successRate)}</td>
                  <td>{r.runCount === 0 ? '—' : ms(r.p95DurationMs)}</td>
                  <td>{when(r.lastRunAt)}</td>
                  <td>
                    <HourBars
                      monitorId={r.monitorId}
                      series={data.hourly.get(r.monitorId)}
                      hours={24}
                      now={data.loadedAt}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <HourTooltip hourly={data.hourly} hours={24} now={data.loadedAt} />
          <Pager
            index={pageIndex}
            pages={Math.ceil(shown.length / ROWS_PER_PAGE)}
            onPage={(i) => set('page', String(i))}
          />
        </>
      )}
    </section>
  );
}
