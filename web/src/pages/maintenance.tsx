import { useState } from 'preact/hooks';
import { ApiError, api, apiData } from '../api.js';
import { when } from '../format.js';
import { useLoad } from '../load.js';
import type { MaintenanceWindow, Matcher, Page, PrincipalSummary, Silence } from '../types.js';
import { SilenceForm } from './silence-form.js';

async function loadMaintenance() {
  const [windows, silences] = await Promise.all([
    apiData<MaintenanceWindow[]>('/maintenance-windows'),
    api<Page<Silence>>('/silences?limit=100'),
  ]);
  return { windows, silences: silences.data };
}

/** `monitor = checkout, cart` per matcher, as people read them; every matcher must match. */
function Matchers({ matchers }: { matchers: Matcher[] }) {
  return (
    <ul class="matchers">
      {matchers.map((m) => (
        <li key={`${m.label}${m.operator}${m.values.join()}`}>
          <code>
            {m.label} {m.operator} {m.values.join(', ')}
          </code>
        </li>
      ))}
    </ul>
  );
}

function schedule(window: MaintenanceWindow): string {
  const s = window.schedule;
  if (s.type === 'once') return `Once, ${when(s.startsAt)} to ${when(s.endsAt)}`;
  if (s.type === 'rrule') return `rule "${s.rrule}" in ${s.timezone}, ${s.durationMinutes} min each`;
  return `cron "${s.cron}" in ${s.timezone}, ${s.durationMinutes} min each`;
}

function WindowsTable({ windows }: { windows: MaintenanceWindow[] }) {
  if (windows.length === 0)
    return (
      <p class="muted">
        No maintenance windows. Create them with the CLI, the API or a MaintenanceWindow resource.
      </p>
    );
  return (
    <table class="windows">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Schedule</th>
          <th scope="col">Matches</th>
          <th scope="col">Now</th>
          <th scope="col">Next start</th>
          <th scope="col">Figures</th>
        </tr>
      </thead>
      <tbody>
        {windows.map((w) => (
          <tr key={w.id}>
            <th scope="row">
              {w.name}
              {w.description !== null && <div class="muted">{w.description}</div>}
            </th>
            <td>{schedule(w)}</td>
            <td>
              <Matchers matchers={w.matchers} />
            </td>
            <td>
              {w.current === null ? (
                'not in force'
              ) : (
                <span class="badge degraded">in maintenance until {when(w.current.end)}</span>
              )}
            </td>
            <td>{when(w.next?.start)}</td>
            <td>{w.excludeFromFigures ? 'left out' : 'counted'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ExpireButton({ silence, onExpired }: { silence: Silence; onExpired: () => void }) {
  const [error, setError] = useState<string | undefined>();
  const expire = () =>
    void apiData<Silence>(`/silences/${encodeURIComponent(silence.id)}`, { method: 'DELETE' }).then(
      onExpired,
      (e: unknown) => setError(e instanceof ApiError ? e.message : String(e)),
    );
  return (
    <>
      <button type="button" onClick={expire} aria-label={`Expire silence ${silence.id}`}>
        Expire
      </button>
      {error !== undefined && <span class="error">{error}</span>}
    </>
  );
}

function SilencesTable(props: { silences: Silence[]; canWrite: boolean; onChange: () => void }) {
  if (props.silences.length === 0) return <p class="muted">No silences.</p>;
  return (
    <table class="silences">
      <thead>
        <tr>
          <th scope="col">State</th>
          <th scope="col">Matches</th>
          <th scope="col">Starts</th>
          <th scope="col">Ends</th>
          <th scope="col">Created by</th>
          <th scope="col">Comment</th>
          {props.canWrite && <th scope="col">Action</th>}
        </tr>
      </thead>
      <tbody>
        {props.silences.map((s) => (
          <tr key={s.id} data-silence={s.id}>
            <td>
              <span class={`badge ${s.state === 'active' ? 'degraded' : ''}`}>{s.state}</span>
            </td>
            <td>
              <Matchers matchers={s.matchers} />
            </td>
            <td>{when(s.startsAt)}</td>
            <td>
              {when(s.endsAt)}
              {s.expiredBy !== null && <div class="muted">expired by {s.expiredBy}</div>}
            </td>
            <td>{s.createdBy}</td>
            <td>{s.comment}</td>
            {props.canWrite && (
              <td>{s.state !== 'expired' && <ExpireButton silence={s} onExpired={props.onChange} />}</td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Maintenance windows and silences: what holds notifications now, what will, and who silenced what (ADR 0033). */
export function MaintenancePage({ principal }: { principal: PrincipalSummary }) {
  const [loaded, reload] = useLoad(loadMaintenance, []);
  const canWrite = principal.permissions.includes('monitors:write');
  return (
    <article class="maintenance">
      <h1>Maintenance and silences</h1>
      <p class="muted">
        Both hold notifications of the runs they match; windows also leave their runs out of uptime and
        success-rate figures when they say so.
      </p>
      {/* Outside the loaded part, so that what it says of the silence it made outlives the reload. */}
      {canWrite && <SilenceForm onCreated={reload} />}
      {loaded.state === 'loading' && <p role="status">Loading maintenance windows and silences…</p>}
      {loaded.state === 'failed' && (
        <p role="alert">Maintenance windows and silences could not be loaded: {loaded.error.message}</p>
      )}
      {loaded.state === 'ready' && (
        <>
          <section aria-labelledby="windows-heading">
            <h2 id="windows-heading">Maintenance windows</h2>
            <WindowsTable windows={loaded.data.windows} />
          </section>
          <section aria-labelledby="silences-heading">
            <h2 id="silences-heading">Silences</h2>
            <SilencesTable silences={loaded.data.silences} canWrite={canWrite} onChange={reload} />
          </section>
        </>
      )}
    </article>
  );
}
