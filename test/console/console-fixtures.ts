// What the console's pages show: a monitor that fails against a loopback API, its run recorded the way a worker
// records it (real runner steps, rollups, rule evaluation), the webhook that run's notification delivers, and a
// fleet of monitors for the overview.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MONITOR_SCHEMA_VERSION,
  monitorDefinitionSchema,
  type Monitor,
} from '../../hub/src/contract/monitor-definition.js';
import { definitionOf } from '../../hub/src/contract/stored-monitor.js';
import { newId } from '../../hub/src/db/ids.js';
import { getNode, monitorDefinition, statusAssertionNode } from '../harness/monitors.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { recordRunResult, type RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { insertRuns } from '../../hub/src/runs/run.repository.js';
import { loopbackEgress } from '../harness/egress.js';
import type { TestHub } from '../harness/hub.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

export interface LoopbackServer {
  url: string;
  /** Request bodies received, oldest first. */
  bodies: string[];
  close(): Promise<void>;
}

/** A loopback server answering every request with `status` and `body`, keeping what it was sent. */
export async function startLoopbackServer(status: number, body: unknown): Promise<LoopbackServer> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      bodies.push(text);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A login then an order request, the order's status checked: against the target it gets 503 and fails. */
export function failingMonitor(targetUrl: string, notifyIntegration?: string) {
  return monitorDefinition({
    nodes: [
      {
        ...getNode('login', targetUrl, '/login'),
        method: 'POST',
        headers: { authorization: { $secret: { ref: 'shop-token' } }, 'x-client': 'meerkat-console-test' },
        body: { user: 'probe' },
      },
      getNode('order', targetUrl, '/order'),
      statusAssertionNode('check-order', 'order'),
    ],
    edges: [
      { from: 'login', to: 'order' },
      { from: 'order', to: 'check-order' },
    ],
    notifications:
      notifyIntegration === undefined
        ? []
        : [
            {
              trigger: { type: 'run_failed' },
              routing: { channelType: 'webhook' },
              integration: notifyIntegration,
            },
          ],
  });
}

/** Runs the stored monitor with the real runner and records the outcome through the workers' path. */
export async function runMonitorOnce(
  hub: TestHub,
  monitorId: string,
  hooks: RunFinishedHook[],
): Promise<string> {
  const response = await hub.request('GET', `/monitor/${monitorId}`);
  const { data } = (await response.json()) as { data: Monitor };
  const definition = monitorDefinitionSchema.parse(definitionOf(data));
  const runner = createMonitorRunner({ egress: loopbackEgress });
  const outcome = await runner.run(definition, { secrets: hub.secrets, organizationId: 'acme' });
  await runner.close();
  const [row] = await insertRuns(hub.db, [
    {
      organization_id: 'acme',
      id: newId('run'),
      monitor_id: monitorId,
      execution_group_id: newId('grp'),
      location: 'eu-west',
      environment: definition.environment,
      status: 'running',
      triggered_by: 'schedule',
      schedule_slot: null,
      started_at: outcome.startedAt,
      errors: jsonColumn([]),
    },
  ]);
  if (row === undefined) throw new Error('the run was not inserted');
  await recordRunResult(
    hub.db,
    row,
    {
      success: outcome.success,
      errors: outcome.errors,
      steps: outcome.steps,
      completedAt: outcome.completedAt,
      durationMs: outcome.durationMs,
    },
    [rollupHook, ...hooks],
  );
  return row.id;
}

/**
 * `count` monitors in projects `team-0` to `team-9` and two environments, stored as the API stores them, each with
 * one finished run (every seventh failed) in the rollups.
 */
export async function seedFleet(hub: TestHub, count: number): Promise<void> {
  const now = new Date();
  const monitors = Array.from({ length: count }, (_, i) => {
    const definition = monitorDefinitionSchema.parse({
      ...failingMonitor('https://api.example.com'),
      project: `team-${i % 10}`,
      name: `fleet-${String(i).padStart(4, '0')}`,
      environment: i % 2 === 0 ? 'production' : 'staging',
      notifications: [],
    });
    return { id: `fleet-${i}`, definition };
  });
  await hub.db
    .insertInto('monitors')
    .values(
      monitors.map(({ id, definition }) => ({
        organization_id: 'acme',
        id,
        project: definition.project,
        environment: definition.environment,
        name: definition.name,
        schema_version: MONITOR_SCHEMA_VERSION,
        definition: jsonColumn(definition),
        updated_at: now,
      })),
    )
    .execute();
  const rows = await insertRuns(
    hub.db,
    monitors.map(({ id, definition }, i) => ({
      organization_id: 'acme',
      id: newId('run'),
      monitor_id: id,
      execution_group_id: newId('grp'),
      location: 'default',
      environment: definition.environment,
      status: 'running' as const,
      triggered_by: 'schedule' as const,
      schedule_slot: null,
      started_at: new Date(now.getTime() - (i % 60) * 60_000),
      errors: jsonColumn([]),
    })),
  );
  for (let i = 0; i < rows.length; i += 8)
    await Promise.all(
      rows.slice(i, i + 8).map((row, j) =>
        recordRunResult(
          hub.db,
          row,
          {
            success: (i + j) % 7 !== 0,
            errors: (i + j) % 7 !== 0 ? [] : ['order: status EQUAL 200, got 503'],
            steps: [],
            completedAt: new Date((row.started_at as Date).getTime() + 100 + ((i + j) % 50) * 10),
            durationMs: 100 + ((i + j) % 50) * 10,
          },
          [rollupHook],
        ),
      ),
    );
}

/** One finished run of a stored monitor, started at `at`, recorded through the workers' path (rollups included). */
export async function recordFinishedRun(
  hub: TestHub,
  monitorId: string,
  success: boolean,
  at = new Date(Date.now() - 1000),
): Promise<void> {
  const startedAt = at;
  const [row] = await insertRuns(hub.db, [
    {
      organization_id: 'acme',
      id: newId('run'),
      monitor_id: monitorId,
      execution_group_id: newId('grp'),
      location: 'default',
      environment: 'production',
      status: 'running',
      triggered_by: 'schedule',
      schedule_slot: null,
      started_at: startedAt,
      errors: jsonColumn([]),
    },
  ]);
  if (row === undefined) throw new Error('the run was not inserted');
  await recordRunResult(
    hub.db,
    row,
    {
      success,
      errors: success ? [] : ['order: status EQUAL 200, got 503'],
      steps: [],
      completedAt: new Date(startedAt.getTime() + 120),
      durationMs: 120,
    },
    [rollupHook],
  );
}
