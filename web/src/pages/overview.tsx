import { useEffect, useMemo } from 'preact/hooks';
import { Sparkline } from '../components/sparkline.js';
import { ms, percent, when } from '../format.js';
import { useLoad } from '../load.js';
import { Link, navigate, useLocation } from '../router.js';
import type { Period } from '../types.js';
import { compareMonitorRows } from '../../../hub/src/metrics/monitor-row-order.js';
import { loadOverview, type SortField } from './overview-data.js';
import { consoleMonitorPath } from '../../../hub/src/contract/console-paths.js';

const PERIODS: Period[] = ['1h', '6h', '24h', '7d', '30d'];
/** Rows drawn at a time: a thousand rows with a sparkline each take the browser a second to lay out. */
const ROWS_PER_PAGE = 100;
const SORTS: Array<[SortField, string]> = [
  ['name', 'Name'],
  ['success_rate', 'Success rate'],
  ['p95_duration_ms', 'p95'],
  ['run_count', 'Runs'],
];

function Choice(props: {
  id: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
  onChange: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

function Pager({ index, pages, onPage }: { index: number; pages: number; onPage: (index: number) => void }) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages of monitors">
      <button type="button" disabled={index === 0} onClick={() => onPage(index - 1)}>
        Previous
      </button>
      <span>
        Page {index + 1} of {pages}
      </span>
      <button type="button" disabled={index + 1 >= pages} onClick={() => onPage(index + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Every monitor of the organization with its health; the filters live in the address, so a view can be shared. */
export function OverviewPage() {
  const url = useLocation();
  const q = url.searchParams;
  const period = PERIODS.find((p) => p === q.get('period')) ?? '24h';
  const [project, environment, status] = [
    q.get('project') ?? '',
    q.get('environment') ?? '',
    q.get('status') ?? '',
  ];
  const sort = SORTS.find(([s]) => s === q.get('sort'))?.[0] ?? 'name';
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
  const shown = useMemo(
    () =>
      (data?.rows ?? [])
        .filter(
          (r) =>
            (project === '' || r.project === project) &&
            (environment === '' || r.environment === environment) &&
            (status === '' || r.status === status),
        )
        .sort(compareMonitorRows(sort, order)),
    [data, project, environment, status, sort, order],
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
        <Choice
          id="status"
          label="Health"
          value={status}
          options={[
            ['', 'All'],
            ['healthy', 'Healthy'],
            ['degraded', 'Degraded'],
            ['failing', 'Failing'],
          ]}
          onChange={(v) => set('status', v)}
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
                    <span class={`badge ${r.status}`}>{r.status}</span>
                  </td>
                  <td>{r.runCount === 0 ? '—' : percent(r.successRate)}</td>
                  <td>{r.runCount === 0 ? '—' : ms(r.p95DurationMs)}</td>
                  <td>{when(r.lastRunAt)}</td>
                  <td>
                    <Sparkline series={data.hourly.get(r.monitorId)} hours={24} now={data.loadedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
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
