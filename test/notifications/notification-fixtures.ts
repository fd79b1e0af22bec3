// Monitors with notifications, runs finished the way a worker finishes them, and a delivery queue that
// keeps what was enqueued, for the notification tests.
import type { Db } from '../../hub/src/db/database.js';
import { newId } from '../../hub/src/db/ids.js';
import type { DeliveryJobData, DeliveryQueue } from '../../hub/src/notifications/delivery-queue.js';
import type { NotificationEvent, NotificationRule } from '../../hub/src/notifications/notification.schema.js';
import { recordRunResult, type RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { insertRuns } from '../../hub/src/runs/run.repository.js';
import type { TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

export const webhookSecret = 'whsec_' + Buffer.from('a test signing secret of 32 bytes').toString('base64');

/** A delivery queue that only remembers what the rule evaluation enqueued. */
export function recordingDeliveryQueue(): DeliveryQueue & { jobs: DeliveryJobData[] } {
  const jobs: DeliveryJobData[] = [];
  return {
    jobs,
    enqueue: (data) => {
      jobs.push(data);
      return Promise.resolve();
    },
    consume: () => ({ close: () => Promise.resolve() }),
    close: () => Promise.resolve(),
  };
}

export async function createWebhookIntegration(hub: TestHub, name: string, url: string): Promise<string> {
  const response = await hub.request('POST', '/integrations', {
    body: {
      name,
      environment: 'production',
      config: { providerType: 'webhook', url },
      credentials: { signingSecret: webhookSecret },
    },
  });
  if (response.status !== 201) throw new Error(`integration: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

export async function putMonitor(
  hub: TestHub,
  id: string,
  notifications: unknown[],
  name = id,
): Promise<Response> {
  return hub.request('PUT', `/monitor/${id}`, {
    body: validMonitor({ name, environment: 'production', locations: ['eu-west', 'us-east'], notifications }),
  });
}

let clockMinutes = 0;
/** A run completion time: each call is later than the last by `minutes` (default 1). */
export function later(minutes = 1): Date {
  clockMinutes += minutes;
  return new Date(Date.UTC(2026, 0, 1) + clockMinutes * 60_000);
}

/** Inserts a running run and records its result through the same path a worker takes. */
export async function finishRun(
  db: Db,
  hooks: readonly RunFinishedHook[],
  run: {
    monitorId: string;
    location?: string;
    success: boolean;
    at: Date;
    durationMs?: number;
    errors?: string[];
  },
): Promise<string> {
  const id = newId('run');
  await insertRuns(db, [
    {
      organization_id: 'acme',
      id,
      monitor_id: run.monitorId,
      execution_group_id: newId('grp'),
      location: run.location ?? 'eu-west',
      environment: 'production',
      status: 'running',
      triggered_by: 'schedule',
      schedule_slot: null,
      started_at: run.at,
      errors: jsonColumn([]),
    },
  ]);
  await recordRunResult(
    db,
    { organization_id: 'acme', id },
    {
      success: run.success,
      errors: run.errors ?? (run.success ? [] : ['assertion failed: status expected 200, actual 503']),
      steps: null,
      completedAt: run.at,
      durationMs: run.durationMs ?? 100,
    },
    hooks,
  );
  return id;
}

export async function eventsOf(hub: TestHub, ruleId?: string) {
  const query = ruleId === undefined ? '' : `?ruleId=${ruleId}`;
  const response = await hub.request('GET', `/notifications/events${query}`);
  return ((await response.json()) as { data: NotificationEvent[] }).data;
}

export async function rulesOf(hub: TestHub, monitorId: string) {
  const response = await hub.request('GET', '/notifications/rules');
  const { data } = (await response.json()) as { data: NotificationRule[] };
  return data.filter((rule) => rule.monitorId === monitorId);
}

/** A closed loopback port: a delivery to a seeded webhook fails at once and never leaves the machine. */
const seededConfig = {
  chat: {},
  email: { fromAddress: 'alerts@example.com' },
  webhook: { url: 'http://127.0.0.1:9/seeded' },
};

/**
 * One enabled integration of each channel type per organization and environment, so monitors whose
 * notifications name no integration resolve (rule sync refuses them otherwise).
 */
export async function seedIntegrationsForEveryChannel(
  db: Db,
  organizationIds: string[] = ['acme', 'globex'],
  environments: string[] = ['default', 'production', 'staging', 'qa'],
): Promise<void> {
  const now = new Date();
  const rows = organizationIds.flatMap((organizationId) =>
    environments.flatMap((environment) =>
      (['chat', 'email', 'webhook'] as const).map((type) => ({
        organization_id: organizationId,
        id: `int_${type}_${environment}`,
        environment,
        name: `${type}-${environment}`,
        category: 'notifications',
        provider: 'cloud',
        provider_type: type,
        // Configs the API could have written (integration.schema.ts): the hub client reads them by that schema.
        config: jsonColumn(seededConfig[type]),
        credentials_encrypted: null,
        connection_id: null,
        created_at: now,
        updated_at: now,
      })),
    ),
  );
  await db.insertInto('integrations').values(rows).execute();
}
