// The fleet health sweep against the real hub (PostgreSQL behind it): one paged read of GET /metrics/monitors
// per refresh period, counted at the HTTP client, and only Monitors whose figures differ from their status handed
// on (ADR 0049).
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHubClient, type HubClient } from '../../hub/src/client/hub-client.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import type { MonitorHealthRow } from '../../hub/src/client/hub-client.js';
import { healthDiffers, startFleetHealthSweep } from '../../operator/src/fleet-health.js';
import { withHealth } from '../../operator/src/monitor-health.js';
import type { MonitorResourceStatus } from '../../operator/src/monitor-resource-status.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

const MONITORS = 250;
let hub: TestHub;
let client: HubClient;
const ids = Array.from({ length: MONITORS }, () => randomUUID());

const definition = (index: number) =>
  ({
    name: `fleet-${index}`,
    project: 'fleet',
    version: '1.0',
    frequency: { every: 5, unit: 'MINUTE' },
    nodes: [{ id: 'ping', type: 'WAIT', duration_ms: 10 }],
    edges: [],
  }) as unknown as MonitorDefinition;

beforeAll(async () => {
  hub = await startTestHub();
  client = createHubClient(hub.url, hub.keys.acmeEditor);
  for (const [index, id] of ids.entries()) await client.putMonitor(id, definition(index));
});
afterAll(async () => hub.close());

/** A row's figures as the monitor's own metrics give them once the hub's fleet snapshot is current. */
const figuresOf = (row: MonitorHealthRow) => ({
  status: row.status,
  runs: { total: row.runCount, successRate: row.successRate },
  latency: { p95DurationMs: row.p95DurationMs },
  lastRun:
    row.lastRunAt === null
      ? null
      : { startedAt: row.lastRunAt, durationMs: 0, success: row.lastRunSuccess === true },
});

/** The hub requests `action` makes through fetch. */
async function hubRequests(action: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(globalThis, 'fetch');
  try {
    await action();
    return spy.mock.calls.filter(
      ([url]) => new URL(url instanceof Request ? url.url : url).origin === new URL(hub.url).origin,
    ).length;
  } finally {
    spy.mockRestore();
  }
}

describe('fleet health sweep', () => {
  it('reads 250 monitors in 3 requests and hands on only those whose status is behind', async () => {
    const statuses = new Map<string, MonitorResourceStatus>(ids.map((id) => [id, {}]));
    const changed: string[] = [];
    const sweeper = startFleetHealthSweep({
      listMonitorHealth: () => client.listMonitorHealth(),
      onRow: (row) => {
        const status = statuses.get(row.monitorId);
        if (status && healthDiffers(status, row)) changed.push(row.monitorId);
      },
      // Only the sweeps the test runs: the timer's next one is an hour away.
      everyMs: 3_600_000,
      log: pino({ level: 'silent' }),
    });
    await vi.waitFor(() => expect(changed).toHaveLength(MONITORS));

    changed.length = 0;
    const bulk = await hubRequests(() => sweeper.sweep());
    expect(bulk).toBe(Math.ceil(MONITORS / 100));
    // Never written: every Monitor's status lacks its health.
    expect(new Set(changed)).toEqual(new Set(ids));

    // The statuses as reconcile writes them when the rows are current: the next sweep finds nothing to do.
    for (const id of ids) {
      const row = sweeper.rowOf(id);
      expect(row).toBeDefined();
      statuses.set(id, withHealth({}, figuresOf(row!), {}, 1, new Date()));
    }
    changed.length = 0;
    const steady = await hubRequests(() => sweeper.sweep());
    expect(steady).toBe(Math.ceil(MONITORS / 100));
    expect(changed).toEqual([]);

    // What the same refresh cost before: a metrics GET per Monitor.
    const perMonitor = await hubRequests(() => Promise.all(ids.map((id) => client.getMonitorMetrics(id))));
    expect(perMonitor).toBe(MONITORS);
    console.log(
      `[fleet health] ${MONITORS} monitors: ${steady} hub requests per refresh (before: ${perMonitor}), ` +
        `${changed.length} Monitors to reconcile at steady state`,
    );
    await sweeper.stop();
  });
});
