import { useEffect } from 'preact/hooks';
import { apiData } from '../api.js';
import { AssertionTable } from '../components/assertion-table.js';
import { CheckPanel } from '../components/check-panel.js';
import { HeartbeatPanel } from '../components/heartbeat-panel.js';
import { MonitorGraph } from '../components/monitor-graph.js';
import { RequestPanel } from '../components/request-panel.js';
import { TlsFactsPanel } from '../components/tls-facts.js';
import { Waterfall } from '../components/waterfall.js';
import { ms, when } from '../format.js';
import { useLoad } from '../load.js';
import { Link } from '../router.js';
import type { Monitor, Run, StepResult } from '../types.js';
import { consoleMonitorPath } from '../../../hub/src/contract/console-paths.js';

async function loadRun(runId: string) {
  const run = await apiData<Run>(`/runs/${encodeURIComponent(runId)}`);
  // The monitor may be gone since the run; the run still shows, without its graph and headers.
  const monitor = await apiData<Monitor>(`/monitor/${encodeURIComponent(run.monitorId)}`).catch(
    () => undefined,
  );
  performance.mark('run-api-answered');
  return { run, monitor, loadedAt: Date.now() };
}

/** The page a notification links to: what the run did, step by step, and why it failed. */
export function RunDetailPage({ runId }: { runId: string }) {
  const [loaded] = useLoad(() => loadRun(runId), [runId]);
  useEffect(() => {
    if (loaded.state === 'ready') {
      performance.mark('run-rendered');
      document.title = `Run ${runId} · Meerkat`;
    }
  }, [loaded.state, runId]);
  if (loaded.state === 'loading') return <p role="status">Loading the run…</p>;
  if (loaded.state === 'failed')
    return <p role="alert">The run could not be loaded: {loaded.error.message}</p>;
  const { run, monitor, loadedAt } = loaded.data;
  const steps = (run.steps ?? []) as unknown as StepResult[];
  const outcome = run.success === null ? run.status : run.success ? 'passed' : 'failed';
  const assertions = steps.flatMap((s) => s.assertions ?? []);
  const errorClasses = [...new Set(steps.flatMap((s) => (s.errorClass === undefined ? [] : [s.errorClass])))];
  const status = Object.fromEntries(steps.map((s) => [s.nodeId, s.status]));
  // A heartbeat's run is a ping (or a missed one) the hub recorded: nothing ran, so there is no waterfall.
  const heartbeat = steps.find((s) => (s.type as string) === 'HEARTBEAT');
  return (
    <article class="run">
      <h1>
        <span class={`badge ${outcome}`}>{outcome}</span> Run of{' '}
        <Link href={consoleMonitorPath(run.monitorId)}>
          {run.monitor?.name ?? monitor?.name ?? run.monitorId}
        </Link>
      </h1>
      <dl class="facts">
        <dt>Started</dt>
        <dd>{when(run.startedAt)}</dd>
        <dt>Duration</dt>
        <dd>{ms(run.duration_ms)}</dd>
        <dt>Environment</dt>
        <dd>{run.environment}</dd>
        <dt>Location</dt>
        <dd>{run.location}</dd>
        <dt>Triggered by</dt>
        <dd>{run.triggeredBy}</dd>
      </dl>
      {run.errors.length > 0 && (
        <section aria-labelledby="errors" class="errors">
          <h2 id="errors">Errors{errorClasses.length > 0 && ` (${errorClasses.join(', ')})`}</h2>
          <ul>
            {run.errors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </section>
      )}
      {heartbeat !== undefined ? (
        <HeartbeatPanel step={heartbeat} monitor={monitor} />
      ) : (
        <section aria-labelledby="waterfall">
          <h2 id="waterfall">Waterfall</h2>
          {steps.length === 0 ? <p>The run reported no steps.</p> : <Waterfall steps={steps} />}
        </section>
      )}
      {assertions.length > 0 && (
        <section aria-labelledby="assertions-heading">
          <h2 id="assertions-heading">Assertions</h2>
          <AssertionTable assertions={assertions} />
        </section>
      )}
      {steps.some((s) => s.request !== undefined || s.type === 'HTTP_REQUEST') && (
        <section aria-labelledby="requests">
          <h2 id="requests">Requests</h2>
          {steps.map((s) =>
            s.type === 'HTTP_REQUEST' ? (
              <RequestPanel key={s.nodeId} step={s} node={monitor?.nodes.find((n) => n.id === s.nodeId)}>
                {s.tls !== undefined && (
                  <TlsFactsPanel tls={s.tls} now={loadedAt} labelledBy={`request-${s.nodeId}`} />
                )}
              </RequestPanel>
            ) : (
              <CheckPanel key={s.nodeId} step={s} now={loadedAt} />
            ),
          )}
        </section>
      )}
      {monitor !== undefined && heartbeat === undefined && (
        <section aria-labelledby="graph">
          <h2 id="graph">Graph</h2>
          <MonitorGraph monitor={monitor} status={status} />
        </section>
      )}
    </article>
  );
}
