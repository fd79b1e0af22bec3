import { useEffect } from 'preact/hooks';
import { apiData } from '../api.js';
import { meanUptime, UptimeBars } from '../components/uptime-bars.js';
import { percent } from '../format.js';
import { useLoad } from '../load.js';
import type { PublicStatusPage } from '../types.js';
import { IncidentHistory, MaintenanceList } from './status-history.js';

/** A project's published status: no key; names, health, uptime, incidents and maintenance, nothing else. */
export function StatusPagePage({ slug }: { slug: string }) {
  const [loaded] = useLoad(
    () => apiData<PublicStatusPage>(`/status-pages/public/${encodeURIComponent(slug)}`, { anonymous: true }),
    [slug],
  );
  useEffect(() => {
    if (loaded.state === 'ready') document.title = `${loaded.data.project} status`;
  }, [loaded]);
  if (loaded.state === 'loading') return <p role="status">Loading…</p>;
  if (loaded.state === 'failed') return <p role="alert">There is no status page here.</p>;
  const page = loaded.data;
  const down = page.monitors.filter((m) => m.status === 'failing').length;
  const inMaintenance = page.maintenance.some((w) => w.active);
  return (
    <section class="status-page">
      <h1>{page.project} status</h1>
      <p class={`summary ${down === 0 ? 'healthy' : 'failing'}`}>
        {down === 0 ? 'All systems operational' : `${down} of ${page.monitors.length} failing`}
        {inMaintenance && ' · maintenance in progress'}
      </p>
      <MaintenanceList windows={page.maintenance} />
      <ul class="status-monitors">
        {page.monitors.map((m, i) => {
          const uptime = meanUptime(m.days);
          return (
            <li key={i}>
              <h2>
                {m.name}{' '}
                <span class={`badge ${m.status === 'unknown' ? 'no_data' : m.status}`}>
                  {m.status === 'unknown' ? 'no data' : m.status}
                </span>
              </h2>
              <p class="uptime-figure">
                {uptime === null ? 'No runs in 90 days' : `${percent(uptime)} uptime over 90 days`}
              </p>
              <UptimeBars days={m.days} />
            </li>
          );
        })}
      </ul>
      <IncidentHistory incidents={page.incidents} />
    </section>
  );
}
