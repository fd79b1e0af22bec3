// Known runs recorded through the real run-result path (recordRunResult with the rollup hook), at chosen times.
import { newId } from '../../hub/src/db/ids.js';
import type { Db } from '../../hub/src/db/database.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { recordRunResult } from '../../hub/src/runs/run-finished.js';
import { insertRuns } from '../../hub/src/runs/run.repository.js';
import type { TestHub } from '../harness/hub.js';

/** 2026-01-10T12:00:00Z; `at('11:30')` is that day at 11:30 UTC. */
export const NOW = new Date('2026-01-10T12:00:00Z');
export const at = (time: string) => new Date(`2026-01-10T${time}:00Z`);

export function monitorBody(name: string, environment = 'production') {
  return {
    project: 'shop',
    name,
    version: '1.0',
    environment,
    frequency: { every: 5, unit: 'MINUTE' },
    nodes: [
      {
        id: 'get',
        type: 'HTTP_REQUEST',
        method: 'GET',
        base: 'http://127.0.0.1:9',
        path: '/',
        response_format: 'JSON',
      },
    ],
    edges: [],
  };
}

export interface KnownRun {
  at: Date;
  success: boolean;
  durationMs: number;
  errorClass?: string;
  environment?: string;
  location?: string;
}

export async function recordKnownRun(
  db: Db,
  organizationId: string,
  monitorId: string,
  run: KnownRun,
): Promise<string> {
  const [row] = await insertRuns(db, [
    {
      organization_id: organizationId,
      id: newId('run'),
      monitor_id: monitorId,
      execution_group_id: newId('grp'),
      location: run.location ?? 'default',
      environment: run.environment ?? 'production',
      status: 'running',
      triggered_by: 'schedule',
      schedule_slot: null,
      started_at: run.at,
      created_at: run.at,
      errors: JSON.stringify([]),
    },
  ]);
  const failure = run.success ? [] : [`get: ${run.errorClass ?? 'runner'} failure`];
  const steps = run.success
    ? [{ nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed' }]
    : [
        {
          nodeId: 'get',
          type: 'HTTP_REQUEST',
          status: 'failed',
          errorClass: run.errorClass,
          error: failure[0],
        },
      ];
  await recordRunResult(
    db,
    row!,
    {
      success: run.success,
      errors: failure,
      steps,
      completedAt: new Date(run.at.getTime() + run.durationMs),
      durationMs: run.durationMs,
    },
    [rollupHook],
  );
  return row!.id;
}

/** PUTs the monitor as `caller` and records its runs. */
export async function seedMonitor(
  hub: TestHub,
  id: string,
  runs: KnownRun[],
  options: { environment?: string; organization?: 'acme' | 'globex' } = {},
): Promise<string[]> {
  const organization = options.organization ?? 'acme';
  const res = await hub.request('PUT', `/monitor/${id}`, {
    as: organization === 'acme' ? 'acmeAdmin' : 'globexAdmin',
    body: monitorBody(id, options.environment),
  });
  if (res.status >= 300) throw new Error(`PUT /monitor/${id}: ${res.status} ${await res.text()}`);
  const ids: string[] = [];
  for (const run of runs) ids.push(await recordKnownRun(hub.db, organization, id, run));
  return ids;
}
