import { apiData } from '../api.js';
import { when } from '../format.js';
import { useLoad } from '../load.js';
import { Link } from '../router.js';
import type { NotificationEvent, NotificationRule } from '../types.js';
import { consoleRunPath } from '../../../hub/src/contract/console-paths.js';

async function loadRules(monitorId: string) {
  const rules = (await apiData<NotificationRule[]>('/notifications/rules')).filter(
    (r) => r.monitorId === monitorId,
  );
  const events = await Promise.all(
    rules.map((r) =>
      apiData<NotificationEvent[]>(`/notifications/events?ruleId=${encodeURIComponent(r.id)}&limit=5`),
    ),
  );
  return rules.map((rule, i) => ({ rule, events: events[i] ?? [] }));
}

const deliveryOf = (event: NotificationEvent) =>
  Object.entries(event.deliveryStatus)
    .map(([channel, s]) => `${channel}: ${typeof s.status === 'string' ? s.status : 'pending'}`)
    .join('; ') || 'pending';

/** The monitor's notification rules, each with its last events and how their delivery went. */
export function NotificationRules({ monitorId }: { monitorId: string }) {
  const [loaded] = useLoad(() => loadRules(monitorId), [monitorId]);
  if (loaded.state === 'loading') return <p role="status">Loading the rules…</p>;
  if (loaded.state === 'failed')
    return <p role="alert">The rules could not be loaded: {loaded.error.message}</p>;
  if (loaded.data.length === 0) return <p>No notification rules.</p>;
  return (
    <ul class="rules">
      {loaded.data.map(({ rule, events }) => (
        <li key={rule.id}>
          <p>
            <strong>{rule.trigger.type}</strong> → {rule.routing.channelType} via {rule.integrationName}
            {rule.enabled ? '' : ' (disabled)'}, cooldown {rule.cooldownMinutes} min
          </p>
          {events.length === 0 ? (
            <p class="muted">Never fired.</p>
          ) : (
            <table>
              <caption class="visually-hidden">Last events of the {rule.trigger.type} rule</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Why</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Run</th>
                </tr>
              </thead>
              <tbody>
                {events.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.createdAt)}</td>
                    <td>{e.triggerReason}</td>
                    <td>{deliveryOf(e)}</td>
                    <td>{e.runId === null ? '—' : <Link href={consoleRunPath(e.runId)}>{e.runId}</Link>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </li>
      ))}
    </ul>
  );
}
