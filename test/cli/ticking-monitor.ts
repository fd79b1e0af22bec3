import { expect } from 'vitest';
import { eventually } from '../harness/eventually.js';
import type { ApiCall, Receiver } from '../metrics/live-activity.js';
import { monitorBody } from '../metrics/metrics-fixtures.js';

/**
 * Creates a monitor due every 10 s against `receiver` and waits until two of its runs completed: a release's
 * scheduling and checking work end to end, whichever processes carry them. Then its processes' `output` logged no
 * error and no query that gave up waiting for a connection.
 */
export async function expectTickingMonitorChecked(call: ApiCall, receiver: Receiver, output: () => string) {
  const ticking = {
    ...monitorBody('ticking'),
    frequency: { every: 1 / 6, unit: 'MINUTE' },
    nodes: [{ ...monitorBody('ticking').nodes[0], base: receiver.url, path: '/ok' }],
  };
  expect((await call('PUT', '/monitor/ticking', ticking)).status).toBe(201);
  const completed = await eventually(async () => {
    const answer = await call('GET', '/runs/?monitorId=ticking');
    const runs = ((await answer.json()) as { data: Array<{ status: string }> }).data;
    return runs.filter((r) => r.status === 'completed').length >= 2 ? runs : undefined;
  }, 45_000);
  expect(completed.filter((r) => r.status === 'completed').length).toBeGreaterThanOrEqual(2);
  expect(output()).not.toContain('timeout exceeded when trying to connect');
  expect(output()).not.toContain('"level":50');
}
