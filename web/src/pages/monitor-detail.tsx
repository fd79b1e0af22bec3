import { useState } from 'preact/hooks';
import { ApiError, api, apiData } from '../api.js';
import { HeartbeatSummary } from '../components/heartbeat-panel.js';
import { LatencyChart } from '../components/latency-chart.js';
import { MonitorGraph } from '../components/monitor-graph.js';
import { NotificationRules } from '../components/notification-rules.js';
import { UptimeBars } from '../components/uptime-bars.js';
import { ms, percent, when } from '../format.js';
import { useLoad } from '../load.js';
import { Link } from '../router.js';
import type { Monitor, MonitorMetrics, Page, Period, PrincipalSummary, Run, UptimeDay } from '../types.js';
import { consoleRunPath } from '../../../hub/src/contract/console-paths.js';

const PERIODS: Period[] = ['1h', '6h', '24h', '7d', '30d'];

async function loadMonitor(monitorId: string, period: Period) {
  const id = encodeURIComponent(monitorId);
  const [monitor, metrics, days, runs] = await Promise.all([
    apiData<Monitor>(`/monitor/${id}`),
    apiData<MonitorMetrics>(`/metrics/monitors/${id}?period=${period}`),
    apiData<UptimeDay[]>(`/metrics/monitors/${id}/uptime-days?days=90`),
    api<Page<Run>>(`/runs/?monitorId=${id}&limit=50`),
  ]);
  return { monitor, metrics, days, runs: runs.data };
}

function RunNow({ monitor }: { monitor: Monitor }) {
  const [state, setState] = useState<{ busy: boolean; run?: Run; error?: string }>({ busy: false });
  const trigger = () => {
    setState({ busy: true });
    apiData<Run>(`/runs/trigger/${encodeURIComponent(monitor.id)}`, {
      method: 'POST',
      body: { environment: monitor.environment },
    }).then(
      (run) => setState({ busy: false, run }),
      (e: unknown) => setState({ busy: false, error: e instanceof ApiError ? e.message : String(e) }),
    );
  };
  return (
    <div class="run-now">
      <button type="button" class="primary" disabled={state.busy} onClick={trigger}>
        Run now
      </button>
      <span role="status">
        {state.run !== undefined && (
          <>
            Run started: <Link href={consoleRunPath(state.run.id)}>{state.run.id}</Link>
          </>
        )}
        {state.error !== undefined && <span class="error">{state.error}</span>}
      </span>
    </div>
  );
}

/** One monitor: uptime, latency, recent runs, its definition and its notification rules. */
export function MonitorDetailPage({
  monitorId,
  principal,
}: {
  monitorId: string;
  principal: PrincipalSummary;
}) {
  const [period, setPeriod] = useState<Period>('24h');
  const [loaded, reload] = useLoad(() => loadMonitor(monitorId, period), [monitorId, period]);
  if (loaded.state === 'loading') return <p role="status">Loading the monitor…</p>;
  if (loaded.state === 'failed')
    return <p role="alert">The monitor could not be loaded: {loaded.error.message}</p>;
  const { monitor, metrics, days, runs } = loaded.data;
  const l = metrics.latency;
  return (
    <article class="monitor">
      <h1>
        <span class={`badge ${metrics.status}`}>{metrics.status}</span> {monitor.name}
      </h1>
      <p class="muted">
        {monitor.project} · {monitor.environment} · every {monitor.frequency.every}{' '}
        {monitor.frequency.unit.toLowerCase()}
      </p>
      {metrics.maintenance !== null && (
        <p class="maintenance-note">
          <span class="badge degraded">in maintenance</span>{' '}
          <Link href="/ui/maintenance">{metrics.maintenance.name}</Link> until {when(metrics.maintenance.end)}
          {metrics.maintenance.excludeFromFigures ? '; its runs are left out of the figures' : ''}
        </p>
      )}
      {/* A heartbeat runs nothing: the hub refuses to trigger it (409). */}
      {principal.permissions.includes('runs:write') && monitor.heartbeat === undefined && (
        <RunNow monitor={monitor} />
      )}
      <section aria-labelledby="uptime">
        <h2 id="uptime">Uptime, last 90 days</h2>
        <UptimeBars days={days} />
      </section>
      <section aria-labelledby="latency">
        <h2 id="latency">Latency</h2>
        <div class="field">
          <label for="period">Period</label>
          <select id="period" value={period} onChange={(e) => setPeriod(e.currentTarget.value as Period)}>
            {PERIODS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </div>
        <table class="latency">
          <caption>
            {metrics.runs.total} runs over {period},{' '}
            {percent(metrics.runs.total === 0 ? null : metrics.runs.successRate)} successful, uptime{' '}
            {percent(metrics.knownSeconds === 0 ? null : metrics.uptimePercent)}
          </caption>
          <thead>
            <tr>
              {['min', 'avg', 'p50', 'p95', 'p99', 'max'].map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              {[
                l.minDurationMs,
                l.avgDurationMs,
                l.p50DurationMs,
                l.p95DurationMs,
                l.p99DurationMs,
                l.maxDurationMs,
              ].map((v, i) => (
                <td key={i}>{metrics.runs.total === 0 ? '—' : ms(v)}</td>
              ))}
            </tr>
          </tbody>
        </table>
        <LatencyChart runs={runs} label={`Durations of the last ${runs.length} runs`} />
      </section>
      <section aria-labelledby="runs">
        <h2 id="runs">Recent runs</h2>
        <button type="button" onClick={reload}>
          Refresh
        </button>
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Outcome</th>
              <th scope="col">Location</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {runs.slice(0, 20).map((r) => {
              const outcome = r.success === null ? r.status : r.success ? 'passed' : 'failed';
              return (
                <tr key={r.id}>
                  <td>
                    <Link href={consoleRunPath(r.id)}>{when(r.startedAt ?? r.createdAt)}</Link>
                  </td>
                  <td>
                    <span class={`badge ${outcome}`}>{outcome}</span>
                  </td>
                  <td>{r.location}</td>
                  <td>{ms(r.duration_ms)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="definition">
        <h2 id="definition">Definition</h2>
        {monitor.heartbeat === undefined ? (
          <MonitorGraph monitor={monitor} />
        ) : (
          <HeartbeatSummary monitor={monitor} runs={runs} />
        )}
        <details>
          <summary>The definition as stored</summary>
          <pre>{JSON.stringify({ ...monitor, createdAt: undefined, updatedAt: undefined }, null, 2)}</pre>
        </details>
      </section>
      <section aria-labelledby="notifications">
        <h2 id="notifications">Notifications</h2>
        <NotificationRules monitorId={monitor.id} />
      </section>
    </article>
  );
}
