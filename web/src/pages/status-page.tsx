import { useEffect } from 'preact/hooks';
import { apiData } from '../api.js';
import { UptimeBars } from '../components/uptime-bars.js';
import { useLoad } from '../load.js';
import type { PublicStatusPage } from '../types.js';

/** A project's published status: no key, and nothing but names, health and uptime bars. */
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
  return (
    <section class="status-page">
      <h1>{page.project} status</h1>
      <p class={`summary ${down === 0 ? 'healthy' : 'failing'}`}>
        {down === 0 ? 'All systems operational' : `${down} of ${page.monitors.length} failing`}
      </p>
      <ul class="status-monitors">
        {page.monitors.map((m, i) => (
          <li key={i}>
            <h2>
              {m.name} <span class={`badge ${m.status}`}>{m.status}</span>
            </h2>
            <UptimeBars days={m.days} />
          </li>
        ))}
      </ul>
    </section>
  );
}
