// Known runs recorded through the real run-result path (recordRunResult with the rollup hook), at chosen times,
// and what the metrics tests check them with.
import type { Selectable } from 'kysely';
import { expect } from 'vitest';
import { newId } from '../../hub/src/db/ids.js';
import type { Db } from '../../hub/src/db/database.js';
import type { RunRollupHourTable } from '../../hub/src/db/tables.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { recordRunResult, type RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { insertRuns } from '../../hub/src/runs/run.repository.js';
import type { Caller, TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

/** 2026-01-10T12:00:00Z; `at('11:30')` is that day at 11:30 UTC. */
export const NOW = new Date('2026-01-10T12:00:00Z');
export const at = (time: string) => new Date(`2026-01-10T${time}:00Z`);

export function monitorBody(name: string, environment = 'production') {
  return monitorDefinition({ name, environment });
}

export interface KnownRun {
  at: Date;
  success: boolean;
  durationMs: number;
  errorClass?: string;
  environment?: string;
  location?: string;
  /** The steps the run reports, instead of one HTTP step that passed or failed as `success` says. */
  steps?: Array<Record<string, unknown>>;
}

/** Records `run` through the run-result path with `hooks` (the rollups unless told otherwise). */
export async function recordKnownRun(
  db: Db,
  organizationId: string,
  monitorId: string,
  run: KnownRun,
  hooks: readonly RunFinishedHook[] = [rollupHook],
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
      errors: jsonColumn([]),
    },
  ]);
  const failure = run.success ? [] : [`get: ${run.errorClass ?? 'runner'} failure`];
  const steps =
    run.steps ??
    (run.success
      ? [{ nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed' }]
      : [
          {
            nodeId: 'get',
            type: 'HTTP_REQUEST',
            status: 'failed',
            errorClass: run.errorClass,
            error: failure[0],
          },
        ]);
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
    hooks,
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

/** GETs `path` as `as` (acmeViewer), expects 200, and returns the body: `data`, and `total` for a list. */
export async function getBody<T>(
  hub: TestHub,
  path: string,
  as: Caller = 'acmeViewer',
): Promise<{ data: T; total?: number }> {
  const res = await hub.request('GET', path, { as });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: T; total?: number };
}

/** GETs `path` as `as` (acmeViewer), expects 200, and returns the body's `data`. */
export async function getData<T>(hub: TestHub, path: string, as: Caller = 'acmeViewer'): Promise<T> {
  return (await getBody<T>(hub, path, as)).data;
}

/** Percentiles come from the 1.02 log histogram: within 1% of the exact nearest-rank duration. */
export function within1Percent(value: number, expected: number): void {
  expect(Math.abs(value - expected) / expected).toBeLessThanOrEqual(0.01);
}

/** A histogram or error-class column as read (kysely types a generated JSON column as its column type). */
const countsOf = (column: unknown) => column as Record<string, number>;

/** The sum of a histogram's or an error-class map's counts. */
export const totalOf = (counts: unknown) => Object.values(countsOf(counts)).reduce((t, n) => t + n, 0);

/** What expectAllEqualsSumOfEach compares of an hour or a day rollup row. */
export type TierRow = Pick<
  Selectable<RunRollupHourTable>,
  | 'environment'
  | 'run_count'
  | 'success_count'
  | 'failure_count'
  | 'duration_count'
  | 'duration_sum_ms'
  | 'duration_min_ms'
  | 'duration_max_ms'
  | 'histogram'
  | 'error_classes'
  | 'first_minute'
>;

/** The "every environment" row ('') of one hour or day is the sum of the environment rows, key by key. */
export function expectAllEqualsSumOfEach(rows: TierRow[], label: string) {
  const all = rows.find((r) => r.environment === '')!;
  const each = rows.filter((r) => r.environment !== '');
  expect(all, label).toBeDefined();
  const sum = (pick: (r: TierRow) => number) => each.reduce((t, r) => t + pick(r), 0);
  expect(all.run_count, label).toBe(sum((r) => r.run_count));
  expect(all.success_count, label).toBe(sum((r) => r.success_count));
  expect(all.failure_count, label).toBe(sum((r) => r.failure_count));
  expect(all.duration_count, label).toBe(sum((r) => r.duration_count));
  expect(all.duration_sum_ms, label).toBe(sum((r) => r.duration_sum_ms));
  expect(all.duration_min_ms, label).toBe(Math.min(...each.map((r) => r.duration_min_ms!)));
  expect(all.duration_max_ms, label).toBe(Math.max(...each.map((r) => r.duration_max_ms!)));
  expect(all.first_minute, label).toEqual(new Date(Math.min(...each.map((r) => r.first_minute!.getTime()))));
  const merged = (column: 'histogram' | 'error_classes') => {
    const counts: Record<string, number> = {};
    for (const r of each)
      for (const [key, n] of Object.entries(countsOf(r[column]))) counts[key] = (counts[key] ?? 0) + n;
    return counts;
  };
  expect(all.histogram, label).toEqual(merged('histogram'));
  expect(all.error_classes, label).toEqual(merged('error_classes'));
}
