// GitOps at the default limits (issue 33): the operator's sync of 1,000 Monitors against a hub whose rate limits
// are the defaults (20 a second, burst 100) completes, every Monitor Synced with its health, and the hub answers no
// 429 on the way: the hub client paces itself by the hub's RateLimit headers (docs/adr/0028-quotas-and-bulk-writes.md).
import { CustomObjectsApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';
import { rateLimitSettingsOf } from '../../hub/src/server/rate-limit.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from '../../operator/src/monitor-resource-status.js';
import { answeredStatuses, capturedLog } from '../harness/captured-log.js';
import { adminKubeConfig, eventually } from '../kube/test-cluster.js';
import { condition, monitorsIn, sampleNamed, setUpOperatorTests } from './operator-fixture.js';

const FLEET = 1_000;
const log = capturedLog();
const setup = setUpOperatorTests('operator-thousand', {
  log: log.log,
  rateLimits: rateLimitSettingsOf(loadSettings({}, 'admin')),
});

async function listMonitors(namespace: string): Promise<MonitorResource[]> {
  const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: MONITOR_PLURAL, namespace };
  return ((await api.listNamespacedCustomObject(target)) as { items: MonitorResource[] }).items;
}

describe('the operator’s sync of 1,000 Monitors at the default rate limits', () => {
  it('syncs every Monitor, and the hub refuses none of its requests', { timeout: 1_200_000 }, async () => {
    const namespace = setup.namespace.name;
    setup.startTestOperator();
    const started = Date.now();
    const monitors = monitorsIn(namespace);
    const names = Array.from({ length: FLEET }, (_, index) => `gitops-${String(index).padStart(4, '0')}`);
    for (let start = 0; start < FLEET; start += 25)
      await Promise.all(
        names.slice(start, start + 25).map((name) => monitors.create(sampleNamed(namespace, name))),
      );
    await eventually(
      'every Monitor synced with its health',
      async () => {
        const items = await listMonitors(namespace);
        const done =
          items.length === FLEET &&
          items.every(
            (item) =>
              item.status?.observedGeneration === item.metadata.generation &&
              condition(item, 'Synced')?.status === 'True' &&
              item.status?.health !== undefined,
          );
        // A list of 1,000 resources is no small read: look every few seconds, not every 100 ms.
        if (!done) await new Promise((resolve) => setTimeout(resolve, 5_000));
        return done ? true : undefined;
      },
      900_000,
    );
    const seconds = (Date.now() - started) / 1000;
    const statuses = answeredStatuses(log);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    const stored = await setup.hub.db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', 'acme')
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(FLEET);
    // A figure for the ADR, not an assertion: timing depends on the machine.
    console.info(
      `operator-thousand: ${statuses.length} hub requests in ${seconds.toFixed(1)} s, none refused`,
    );
  });
});
