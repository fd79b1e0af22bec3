import type { RunRow } from '../../hub/src/runs/run.repository.js';
import type { TestHub } from '../harness/hub.js';

/** A heartbeat monitor's definition: a ping expected every minute, 30 s of grace, in project `jobs`. */
export function heartbeatDefinition(name: string, overrides: Record<string, unknown> = {}) {
  return {
    project: 'jobs',
    name,
    version: '1.0',
    environment: 'production',
    frequency: { every: 1, unit: 'MINUTE' },
    heartbeat: { grace_seconds: 30 },
    ...overrides,
  };
}

/** A clock the test moves by hand, starting now (the runs' day partitions exist around today). */
export function handClock() {
  let at = Date.now();
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}

export async function mintToken(hub: TestHub, monitorId: string): Promise<string> {
  const response = await hub.request('POST', `/monitor/${monitorId}/heartbeat-token`);
  if (response.status !== 201)
    throw new Error(`minting answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

export async function runsOf(hub: TestHub, monitorId: string): Promise<RunRow[]> {
  return hub.db
    .selectFrom('runs')
    .selectAll()
    .where('organization_id', '=', 'acme')
    .where('monitor_id', '=', monitorId)
    .orderBy('completed_at')
    .execute();
}
