import { when } from '../format.js';
import type { PublicStatusPage } from '../types.js';

const HOUR_MS = 3_600_000;

/** "3 h" or "2 d 5 h": an incident's length, to the hour as the page knows it. */
function hoursText(ms: number): string {
  const hours = Math.round(ms / HOUR_MS);
  return hours < 24
    ? `${hours} h`
    : `${Math.floor(hours / 24)} d${hours % 24 === 0 ? '' : ` ${hours % 24} h`}`;
}

/** Maintenance in force now first, then what is scheduled; each with its times and the monitors it covers. */
export function MaintenanceList({ windows }: { windows: PublicStatusPage['maintenance'] }) {
  if (windows.length === 0) return null;
  const ordered = [...windows].sort(
    (a, b) => Number(b.active) - Number(a.active) || a.start.localeCompare(b.start),
  );
  return (
    <section class="status-maintenance" aria-labelledby="maintenance-heading">
      <h2 id="maintenance-heading">Maintenance</h2>
      <ul>
        {ordered.map((w) => (
          <li key={w.name} class={w.active ? 'active' : 'upcoming'}>
            <strong>{w.name}</strong>{' '}
            <span class={`badge ${w.active ? 'degraded' : 'scheduled'}`}>
              {w.active ? 'in progress' : 'scheduled'}
            </span>
            <br />
            {w.active ? `until ${when(w.end)}` : `${when(w.start)} to ${when(w.end)}`}
            <span class="muted"> · {w.monitors.join(', ')}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The last 90 days' incidents, newest first: when each started, how long it lasted or that it goes on. */
export function IncidentHistory({ incidents }: { incidents: PublicStatusPage['incidents'] }) {
  return (
    <section class="status-incidents" aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents, last 90 days</h2>
      {incidents.length === 0 ? (
        <p>No incidents in the last 90 days.</p>
      ) : (
        <ol>
          {incidents.map((incident) => (
            <li
              key={`${incident.monitor} ${incident.start}`}
              class={incident.end === null ? 'ongoing' : 'resolved'}
            >
              <strong>{incident.monitor}</strong>{' '}
              {incident.end === null ? (
                <>
                  <span class="badge failing">ongoing</span> since {when(incident.start)}
                </>
              ) : (
                <>
                  <span class="badge resolved">resolved</span> {when(incident.start)} to {when(incident.end)}{' '}
                  ({hoursText(Date.parse(incident.end) - Date.parse(incident.start))})
                </>
              )}
              <span class="muted">
                {' '}
                · {incident.failedRuns} failed run{incident.failedRuns === 1 ? '' : 's'}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
