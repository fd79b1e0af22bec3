import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredRuns } from '../../hub/src/scheduling/run-retention.js';
import { reapStuckRuns } from '../../hub/src/worker/run-reaper.js';
import { startWorker } from '../../hub/src/server/start-worker.js';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';
import { testRedisUrl } from '../harness/database.js';
import { LOOPBACK_CIDRS } from '../harness/egress.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { freePort, startMeerkat } from '../harness/processes.js';
import {
  monitorAgainst,
  silentLog,
  startTarget,
  testComponents,
  testRunQueue,
  workerSettings,
  type Target,
} from './run-fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const slowMonitor = (target: Target, name: string) =>
  monitorAgainst(target, {
    name,
    nodes: [
      {
        id: 'get',
        type: 'HTTP_REQUEST',
        method: 'GET',
        base: target.url,
        path: '/slow?ms=20000',
        response_format: 'JSON',
      },
    ],
    edges: [],
  });

describe('the run lifecycle', () => {
  let hub: TestHub;
  let target: Target;
  beforeAll(async () => {
    target = await startTarget();
    hub = await startTestHub({ runQueue: testRunQueue() });
  });
  afterAll(async () => {
    await hub.close();
    await target.close();
  });

  const runStatus = async (id: string) =>
    await hub.db
      .selectFrom('runs')
      .select(['status', 'errors', 'success'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('leaves no run `running` after a killed worker, once the reaper period has passed', async () => {
    await hub.request('PUT', '/monitor/slow-one', { body: slowMonitor(target, 'slow-one') });
    const worker = await startMeerkat(
      ['worker', '--locations', 'default'],
      {
        DATABASE_URL: hub.databaseUrl,
        REDIS_URL: testRedisUrl(),
        SECRETS_KEY: 'ab'.repeat(32),
        EGRESS_ALLOW_CIDRS: LOOPBACK_CIDRS,
        LOG_LEVEL: 'info',
        METRICS_PORT: String(await freePort()),
      },
      /worker consuming runs/,
    );
    const triggered = await hub.request('POST', '/runs/trigger/slow-one', {
      body: { environment: 'production' },
    });
    const { data } = (await triggered.json()) as { data: { id: string } };
    // The hub's queue has its own prefix; hand the run to the child's queue (prefix `runs`) as the hub would.
    const { createBullmqRunQueue } = await import('../../hub/src/scheduling/bullmq-run-queue.js');
    const childQueue = createBullmqRunQueue({
      redisUrl: testRedisUrl(),
      log: silentLog,
      retrySeconds: 10,
    });
    await childQueue.enqueue({
      organizationId: 'acme',
      monitorId: 'slow-one',
      location: 'default',
      runId: data.id,
    });
    await eventually(async () => ((await runStatus(data.id)).status === 'running' ? true : undefined));
    worker.child.kill('SIGKILL');
    await childQueue.close();

    expect((await runStatus(data.id)).status).toBe('running');
    const later = { now: () => new Date(Date.now() + 120_000 + 31_000) };
    const reaped = await reapStuckRuns({ db: hub.db, clock: later, log: silentLog, runTimeoutMs: 120_000 });
    expect(reaped.map((r) => r.id)).toContain(data.id);
    expect(await runStatus(data.id)).toEqual({
      status: 'failed',
      success: false,
      errors: ['run failed by the system: still running after its timeout (the worker stopped or lost it)'],
    });
  });

  it('fails an in-flight run with a clear error when the worker shuts down past its grace', async () => {
    const queue: RunQueue = testRunQueue();
    await hub.request('PUT', '/monitor/slow-two', { body: slowMonitor(target, 'slow-two') });
    const worker = startWorker({
      settings: workerSettings({ SHUTDOWN_GRACE_SECONDS: '0' }),
      log: silentLog,
      components: testComponents(hub.db, queue),
      locations: ['default'],
      concurrency: 1,
    });
    const triggered = await hub.request('POST', '/runs/trigger/slow-two', {
      body: { environment: 'production' },
    });
    const { data } = (await triggered.json()) as { data: { id: string } };
    await queue.enqueue({
      organizationId: 'acme',
      monitorId: 'slow-two',
      location: 'default',
      runId: data.id,
    });
    await eventually(async () => ((await runStatus(data.id)).status === 'running' ? true : undefined));
    await worker.close();
    const finished = await runStatus(data.id);
    expect(finished.status).toBe('failed');
    expect(finished.errors[0]).toBe('the worker shut down before the run finished');
    await queue.close();
  });

  it('deletes runs past the retention and keeps the rest', async () => {
    await hub.request('PUT', '/monitor/old-runs', { body: monitorAgainst(target, { name: 'old-runs' }) });
    const row = (id: string, createdAt: Date) => ({
      organization_id: 'acme',
      id,
      monitor_id: 'old-runs',
      execution_group_id: 'grp',
      location: 'default',
      environment: 'production',
      status: 'completed' as const,
      triggered_by: 'manual' as const,
      schedule_slot: null,
      errors: jsonColumn([]),
      created_at: createdAt,
    });
    const now = Date.now();
    await hub.db
      .insertInto('runs')
      .values([
        row('run_old_1', new Date(now - 40 * 86_400_000)),
        row('run_old_2', new Date(now - 31 * 86_400_000)),
        row('run_new', new Date(now - 29 * 86_400_000)),
      ])
      .execute();
    const deleted = await deleteExpiredRuns({
      db: hub.db,
      clock: { now: () => new Date(now) },
      retentionDays: 30,
    });
    expect(deleted).toBe(2);
    const left = await hub.db.selectFrom('runs').select('id').where('monitor_id', '=', 'old-runs').execute();
    expect(left).toEqual([{ id: 'run_new' }]);
  });
});
