// The fleet health sweep against the real hub (PostgreSQL behind it): one paged read of GET /metrics/monitors
// per refresh period, counted at the HTTP client, and only Monitors whose figures differ from their status handed
// on (ADR 0049).
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHubClient, type HubClient } from '../../hub/src/client/hub-client.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { figuresOfRow, healthDiffers, startFleetHealthSweep } from '../../operator/src/fleet-health.js';
import type { MonitorHealthRow } from '../../hub/src/client/hub-client.js';
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
        if (status && healthDiffers(status, row, new Date())) changed.push(row.monitorId);
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
      statuses.set(id, withHealth({}, figuresOfRow(row!, new Date()), {}, 1, new Date()));
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

describe('the figures of a row (ADR 0073)', () => {
  const now = new Date('2026-01-10T12:00:00Z');
  const row = (fields: Partial<MonitorHealthRow>): MonitorHealthRow => ({
    monitorId: 'm',
    status: 'failing',
    successRate: 50,
    runCount: 4,
    p95DurationMs: 900,
    lastRunAt: '2026-01-10T11:50:00.000Z',
    lastRunSuccess: false,
    lastRunId: 'run_4',
    lastRunDurationMs: 800,
    ...fields,
  });

  it('a row written into the status names its latest run, and the next sweep finds nothing to do', () => {
    const status = withHealth({}, figuresOfRow(row({}), now), {}, 1, now);
    expect(status).toMatchObject({
      health: 'failing',
      successRate: '50%',
      lastRunId: 'run_4',
      lastRunResult: 'Failed',
      lastRun: '2026-01-10T11:50:00Z',
    });
    expect(healthDiffers(status, row({}), now)).toBe(false);
  });

  it('a run recorded after the hub’s snapshot (counted 0, latest in the period) stands for the period', () => {
    const uncounted = row({ status: 'degraded', runCount: 0, successRate: 0 });
    const status = withHealth({}, figuresOfRow(uncounted, now), {}, 1, now);
    expect(status).toMatchObject({ health: 'failing', successRate: '0%', lastRunResult: 'Failed' });
    expect(healthDiffers(status, uncounted, now)).toBe(false);
    // Once the snapshot counts it, the figures are the row's own.
    expect(healthDiffers(status, row({ runCount: 1, successRate: 0 }), now)).toBe(false);
  });

  it('a latest run older than the period, with none counted, leaves the health unknown', () => {
    const stale = row({ status: 'degraded', runCount: 0, lastRunAt: '2026-01-09T11:00:00.000Z' });
    expect(withHealth({}, figuresOfRow(stale, now), {}, 1, now)).toMatchObject({
      health: 'unknown',
      lastRunResult: 'Failed',
    });
  });
});
