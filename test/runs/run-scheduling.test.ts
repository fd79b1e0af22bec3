import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorDefinitionSchema } from '../../hub/src/contract/monitor-definition.js';
import { drainScheduleOutbox, reconcileAllSchedules } from '../../hub/src/scheduling/schedule-reconciler.js';
import type { DeliveredRunJob, RunJobData, RunQueue } from '../../hub/src/runs/run-queue.js';
import type { ScheduleStore } from '../../hub/src/runs/schedule-store.js';
import { insertScheduledRun } from '../../hub/src/runs/run.repository.js';
import { accountedSlots } from '../../hub/src/ledger/slot-gap.repository.js';
import { desiredSchedules, latestSlotMs } from '../../hub/src/scheduling/schedules.js';
import { startScheduler } from '../../hub/src/server/start-scheduler.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { systemClock } from '../../hub/src/system/clock.js';
import { createRunJobHandler } from '../../hub/src/worker/run-job-handler.js';
import { createPlaces } from '../../hub/src/system/places.js';
import { createWorkerExecutor, type MonitorRunnerPort } from '../../hub/src/worker/worker-executor.js';
import { loopbackEgress } from '../harness/egress.js';
import { startWorker } from '../../hub/src/server/start-worker.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  monitorAgainst,
  silentLog,
  startTarget,
  testComponents,
  testRunQueue,
  testScheduleStore,
  workerSettings,
  type Target,
} from './run-fixtures.js';
import { testAdmission } from '../harness/scheduling.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const everyTenSeconds = { every: 1 / 6, unit: 'MINUTE' };

describe('scheduled runs on BullMQ', () => {
  let hub: TestHub;
  let target: Target;
  let queue: RunQueue;
  let schedules: ScheduleStore;
  const prefix = testRedisPrefix();
  /** The jobs of a monitor the `default` queue still holds (run jobs, or batches with a slot of it), from BullMQ. */
  const jobsOfMonitor = (monitorId: string) => {
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    // Run jobs in `default`, batches of slots in `default.slots`, those of the first fair lane in
    // `default.slots-first`.
    const bullmq = ['default', 'default.slots', 'default.slots-first'].map(
      (name) => new Queue<RunJobData | { slots: Array<{ data: RunJobData }> }>(name, { connection, prefix }),
    );
    const carries = (data: RunJobData | { slots: Array<{ data: RunJobData }> }) =>
      'slots' in data
        ? data.slots.some((slot) => slot.data.monitorId === monitorId)
        : data.monitorId === monitorId;
    return {
      pendingJobs: async () =>
        (await Promise.all(bullmq.map((q) => q.getJobs(['waiting', 'delayed', 'prioritized', 'active']))))
          .flat()
          .filter((job) => carries(job.data)),
      async close() {
        await Promise.all(bullmq.map((q) => q.close()));
        connection.disconnect();
      },
    };
  };
  beforeAll(async () => {
    target = await startTarget();
    queue = testRunQueue(prefix);
    schedules = testScheduleStore(prefix);
    hub = await startTestHub({ runQueue: queue });
  });
  afterAll(async () => {
    await schedules.close();
    await queue.close();
    await hub.close();
    await target.close();
  });

  const scheduledRuns = (monitorId: string) =>
    hub.db
      .selectFrom('runs')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('triggered_by', '=', 'schedule')
      .orderBy('created_at')
      .execute();

  it('runs a monitor on its frequency, and stops when it is deleted', async () => {
    await hub.request('PUT', '/monitor/ticker', {
      body: monitorAgainst(target, { name: 'ticker', frequency: everyTenSeconds }),
    });
    const settings = workerSettings();
    const components = testComponents(hub.db, queue, undefined, schedules);
    const ticker = jobsOfMonitor('ticker');
    const scheduler = await startScheduler({ settings, log: silentLog, components });
    const worker = startWorker({
      settings,
      log: silentLog,
      components,
      locations: ['default'],
      concurrency: 2,
    });
    try {
      const runs = await eventually(async () => {
        const rows = await scheduledRuns('ticker');
        return rows.filter((r) => r.status === 'completed').length >= 2 ? rows : undefined;
      }, 40_000);
      const slots = runs.map((r) => Number(r.schedule_slot));
      expect(slots[1]! - slots[0]!).toBe(10_000);
      expect(runs.every((r) => r.success === true)).toBe(true);

      expect((await hub.request('DELETE', '/monitor/ticker')).status).toBe(204);
      await eventually(async () =>
        (await schedules.listScheduleIds('default')).some((id) => id.endsWith('/ticker/default'))
          ? undefined
          : true,
      );
      // No scheduler, and no job of the monitor left waiting, delayed or running: no run can come any more.
      await eventually(async () => ((await ticker.pendingJobs()).length === 0 ? true : undefined));
      const hitsAfterDelete = target.hits.length;
      expect(await ticker.pendingJobs()).toEqual([]);
      expect(target.hits.length).toBe(hitsAfterDelete);
    } finally {
      await worker.close();
      await scheduler.close();
      await ticker.close();
    }
  }, 90_000);

  it('keeps one scheduler per monitor and location however often it reconciles', async () => {
    await hub.request('PUT', '/monitor/many-places', {
      body: monitorAgainst(target, { name: 'many', locations: ['default', 'eu-west'] }),
    });
    await drainScheduleOutbox(hub.db, schedules);
    for (let restart = 0; restart < 3; restart += 1)
      await reconcileAllSchedules(hub.db, { schedules, queue }, ['default', 'eu-west'], silentLog);
    const ids = [
      ...(await schedules.listScheduleIds('default')),
      ...(await schedules.listScheduleIds('eu-west')),
    ];
    expect(ids.filter((id) => id.includes('/many-places/')).sort()).toEqual([
      'acme/many-places/default',
      'acme/many-places/eu-west',
    ]);

    await hub.request('PUT', '/monitor/many-places', {
      body: monitorAgainst(target, { name: 'many', locations: ['eu-west'] }),
    });
    await drainScheduleOutbox(hub.db, schedules);
    expect((await schedules.listScheduleIds('default')).filter((id) => id.includes('/many-places/'))).toEqual(
      [],
    );
    expect((await schedules.listScheduleIds('eu-west')).filter((id) => id.includes('/many-places/'))).toEqual(
      ['acme/many-places/eu-west'],
    );
  });

  it('gives a monitor whose schedule was lost the job of its latest slot at once, once', async () => {
    await hub.request('PUT', '/monitor/lost-one', {
      body: monitorAgainst(target, { name: 'lost-one', frequency: { every: 1, unit: 'HOUR' } }),
    });
    const lostPrefix = testRedisPrefix(); // a prefix of its own: an emptied Redis
    const lostQueue = testRunQueue(lostPrefix);
    const lost = { schedules: testScheduleStore(lostPrefix), queue: lostQueue };
    const delivered: DeliveredRunJob[] = [];
    const consumer = lostQueue.consume(
      ['default'],
      (job) => Promise.resolve(void (job.data.monitorId === 'lost-one' && delivered.push(job))),
      { admission: testAdmission(1) },
    );
    try {
      const now = new Date();
      await reconcileAllSchedules(hub.db, lost, ['default'], silentLog, {
        lost: { at: now, accounted: (slots) => accountedSlots(hub.db, slots) },
      });
      // A second lost-schedule reconcile finds the schedule and adds nothing.
      await reconcileAllSchedules(hub.db, lost, ['default'], silentLog, {
        lost: { at: now, accounted: (slots) => accountedSlots(hub.db, slots) },
      });
      await eventually(() => Promise.resolve(delivered.length > 0));
      const [schedule] = desiredSchedules('acme', {
        ...monitorDefinitionSchema.parse(
          monitorAgainst(target, { name: 'lost-one', frequency: { every: 1, unit: 'HOUR' } }),
        ),
        id: 'lost-one',
        createdAt: '',
        updatedAt: '',
      });
      const slot = latestSlotMs(schedule!, now.getTime());
      expect(slot).toBeLessThanOrEqual(now.getTime());
      expect(now.getTime() - slot).toBeLessThan(3_600_000);
      expect(delivered.map((job) => job.slot)).toEqual([String(slot)]);
    } finally {
      await consumer.close();
      await lost.schedules.close();
      await lostQueue.close();
    }
  });

  it('restores a lost schedule without queueing a slot that has a run already', async () => {
    const body = monitorAgainst(target, { name: 'restored', frequency: { every: 1, unit: 'HOUR' } });
    await hub.request('PUT', '/monitor/restored', { body });
    const [schedule] = desiredSchedules('acme', {
      ...monitorDefinitionSchema.parse(body),
      id: 'restored',
      createdAt: '',
      updatedAt: '',
    });
    const now = new Date();
    const slot = latestSlotMs(schedule!, now.getTime());
    // The slot was checked and recorded before Redis lost the schedule.
    await insertScheduledRun(hub.db, {
      organization_id: 'acme',
      id: 'run_restored_1',
      monitor_id: 'restored',
      execution_group_id: 'grp_restored_1',
      location: 'default',
      environment: 'production',
      status: 'completed',
      triggered_by: 'schedule',
      schedule_slot: String(slot),
      errors: jsonColumn([]),
    });
    const lostPrefix = testRedisPrefix();
    const lostQueue = testRunQueue(lostPrefix);
    const lost = { schedules: testScheduleStore(lostPrefix), queue: lostQueue };
    const delivered: DeliveredRunJob[] = [];
    const consumer = lostQueue.consume(
      ['default'],
      (job) => Promise.resolve(void (job.data.monitorId === 'restored' && delivered.push(job))),
      { admission: testAdmission(1) },
    );
    try {
      await reconcileAllSchedules(hub.db, lost, ['default'], silentLog, {
        lost: { at: now, accounted: (slots) => accountedSlots(hub.db, slots) },
      });
      expect(await lost.schedules.listScheduleIds('default')).toContain('acme/restored/default');
      // Long enough for the job of a queued slot to be delivered, had one been queued.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(delivered).toEqual([]);
    } finally {
      await consumer.close();
      await lost.schedules.close();
      await lostQueue.close();
    }
  });

  it('makes one run of a slot delivered twice, even at the same moment', async () => {
    await hub.request('PUT', '/monitor/twice', { body: monitorAgainst(target, { name: 'twice' }) });
    const executed: string[] = [];
    const handler = createRunJobHandler({
      db: hub.db,
      executors: new Map([['default', { execute: (run) => Promise.resolve(void executed.push(run.id)) }]]),
      log: silentLog,
      signal: new AbortController().signal,
    });
    const job = {
      id: 'repeat:acme/twice/default:1767225600000',
      data: { organizationId: 'acme', monitorId: 'twice', location: 'default' },
      slot: '1767225600000',
      dueAt: new Date(),
      delivery: 1,
    };
    await Promise.all([handler(job), handler(job)]);
    await handler(job);
    expect(await scheduledRuns('twice')).toHaveLength(1);
    expect(executed).toHaveLength(1);
  });

  it('records a slot a worker runs in one finished row, once, even when delivered twice at once', async () => {
    await hub.request('PUT', '/monitor/once', { body: monitorAgainst(target, { name: 'once' }) });
    const executor = createWorkerExecutor({
      db: hub.db,
      runner: createMonitorRunner({
        requestTimeoutMs: 5_000,
        runTimeoutMs: 10_000,
        assertionBudgetMs: 2_000,
        egress: loopbackEgress,
      }),
      secrets: testComponents(hub.db, queue).secrets,
      clock: systemClock,
      log: silentLog,
      hooks: [],
    });
    const handler = createRunJobHandler({
      db: hub.db,
      executors: new Map([['default', executor]]),
      log: silentLog,
      signal: new AbortController().signal,
    });
    const job = {
      id: 'repeat:acme/once/default:1767225600000',
      data: { organizationId: 'acme', monitorId: 'once', location: 'default' },
      slot: '1767225600000',
      dueAt: new Date(),
      delivery: 1,
    };
    const statuses: string[] = [];
    const watch = setInterval(() => {
      void scheduledRuns('once').then((rows) => statuses.push(...rows.map((r) => r.status)));
    }, 5);
    await Promise.all([handler(job), handler({ ...job, delivery: 2 })]);
    clearInterval(watch);
    const rows = await scheduledRuns('once');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'completed', success: true, schedule_slot: '1767225600000' });
    expect(rows[0]?.started_at).not.toBeNull();
    // No pending or running row is ever written for it: nothing is left behind if the worker dies mid-run.
    expect(statuses.filter((status) => status !== 'completed')).toEqual([]);
  });

  it('starts the next check while a finished result waits for its batch: waiting holds no check place', async () => {
    for (const id of ['place-a', 'place-b'])
      await hub.request('PUT', `/monitor/${id}`, { body: monitorAgainst(target, { name: id }) });
    let active = 0;
    let mostActive = 0;
    const runner: MonitorRunnerPort = {
      async run() {
        active += 1;
        mostActive = Math.max(mostActive, active);
        const startedAt = new Date();
        await new Promise((resolve) => setTimeout(resolve, 20));
        active -= 1;
        const completedAt = new Date();
        return {
          success: true,
          errors: [],
          errorClasses: [],
          steps: [],
          startedAt,
          completedAt,
          durationMs: 20,
        };
      },
    };
    const batches: string[][] = [];
    const executor = createWorkerExecutor({
      db: hub.db,
      runner,
      secrets: testComponents(hub.db, queue).secrets,
      clock: systemClock,
      log: silentLog,
      hooks: [
        {
          name: 'batches',
          onRunsFinished: (_tx, runs) => Promise.resolve(void batches.push(runs.map((r) => r.monitor_id))),
        },
      ],
      checks: createPlaces(1),
    });
    const slot = (monitorId: string) => ({
      jobId: `repeat:acme/${monitorId}/default:1767225600000`,
      organizationId: 'acme',
      monitorId,
      location: 'default',
      slot: '1767225600000',
    });
    const signal = new AbortController().signal;
    await Promise.all([
      executor.executeScheduled!(slot('place-a'), signal),
      executor.executeScheduled!(slot('place-b'), signal),
    ]);
    // One check at a time, yet both results in one write: the second check ran while the first result waited.
    expect(mostActive).toBe(1);
    expect(batches).toEqual([['place-a', 'place-b']]);
  });

  it('spreads monitors of one frequency over the interval', async () => {
    for (let i = 0; i < 20; i += 1) {
      await hub.request('PUT', `/monitor/spread-${i}`, {
        body: monitorAgainst(target, { name: `spread-${i}`, frequency: { every: 1, unit: 'MINUTE' } }),
      });
    }
    const definitions = await hub.db
      .selectFrom('monitors')
      .select('id')
      .where('id', 'like', 'spread-%')
      .execute();
    const offsets = new Set(
      definitions.map(
        (row) =>
          desiredSchedules('acme', {
            ...monitorDefinitionSchema.parse(
              monitorAgainst(target, { frequency: { every: 1, unit: 'MINUTE' } }),
            ),
            id: row.id,
            createdAt: '',
            updatedAt: '',
          })[0]?.offsetMs,
      ),
    );
    expect(offsets.size).toBeGreaterThan(15);
  });
});
