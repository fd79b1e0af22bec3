import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { DeliveredRunJob, DropReason, RunQueue, RunSchedule } from '../../hub/src/runs/run-queue.js';
import type { ScheduleStore } from '../../hub/src/runs/schedule-store.js';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { createBullmqScheduleStore } from '../../hub/src/scheduling/bullmq-schedule-store.js';
import { DependencyUnavailableError } from '../../hub/src/system/dependency-errors.js';
import { ResultAwaitingWriteError } from '../../hub/src/runs/result-awaiting-write-error.js';
import { eventually } from '../harness/eventually.js';
import { deliveriesFor, retryDelayMs } from '../../hub/src/scheduling/job-retries.js';
import { capturedLog } from '../harness/captured-log.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { testAdmission } from '../harness/scheduling.js';

const job = { organizationId: 'acme', monitorId: 'm', location: 'default' } as const;
const entries = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>);

function testStore(prefix = testRedisPrefix(), redisUrl = testRedisUrl()) {
  return createBullmqScheduleStore({ redisUrl, prefix, log: capturedLog().log });
}

// What every RunQueue and ScheduleStore does is in the conformance tests; here, what only BullMQ on Redis does.
describe('the BullMQ run queue and its Redis schedules', () => {
  it('answers a producer call within its deadline when Redis is away', async () => {
    const queue = createBullmqRunQueue({
      redisUrl: 'redis://127.0.0.1:1',
      prefix: 'unreachable',
      log: capturedLog().log,
      retrySeconds: 10,
    });
    const store = testStore('unreachable', 'redis://127.0.0.1:1');
    try {
      await expect(queue.enqueue({ ...job, runId: 'run_nowhere' })).rejects.toMatchObject({
        dependency: 'redis',
      });
      await expect(store.missingSchedules(['default'])).rejects.toMatchObject({ dependency: 'redis' });
    } finally {
      await store.close();
      await queue.close();
    }
  });

  it('keeps a marker of the last full reconcile that an emptied Redis loses', async () => {
    const store = testStore();
    try {
      expect(await store.missingSchedules(['default'])).toBe('marker');
      await store.markSchedulesPresent(['default']);
      expect(await store.missingSchedules(['default'])).toBe('');
    } finally {
      await store.close();
    }
  });

  describe('when Redis loses a schedule key but keeps the marker (eviction, a lagging replica)', () => {
    const hourly = (id: string): RunSchedule => ({
      id: `acme/${id}/default`,
      location: 'default',
      everyMs: HOUR,
      offsetMs: 0,
      data: { ...job, monitorId: id },
    });
    async function withCountedSchedules(
      test: (queue: ScheduleStore, redis: Redis, prefix: string) => Promise<void>,
    ) {
      const prefix = testRedisPrefix();
      const queue = testStore(prefix);
      const redis = new Redis(testRedisUrl());
      try {
        for (const id of ['a', 'b', 'c']) await queue.upsertSchedule(hourly(id));
        await queue.markSchedulesPresent(['default', 'eu-west']);
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('');
        await test(queue, redis, prefix);
      } finally {
        redis.disconnect();
        await queue.close();
      }
    }

    it('says the next slots are missing once their sorted set is gone, and lists those schedules lost', async () => {
      await withCountedSchedules(async (queue, redis, prefix) => {
        await redis.del(`${prefix}:meerkat:default:next`);
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('next:default');
        expect(await queue.listSchedules('default')).toContainEqual(
          expect.objectContaining({ id: 'acme/a/default', current: false, lost: true }),
        );
        await queue.upsertSchedule(hourly('a'));
        await queue.upsertSchedule(hourly('b'));
        await queue.upsertSchedule(hourly('c'));
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('');
      });
    });

    it('says the schedules are missing once the definitions and next slots are both gone', async () => {
      await withCountedSchedules(async (queue, redis, prefix) => {
        await redis.del(`${prefix}:meerkat:default:next`, `${prefix}:meerkat:default:schedules`);
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('schedules:default');
      });
    });

    it('keeps counting what the outbox adds and removes, but never revives a lost marker', async () => {
      await withCountedSchedules(async (queue, redis, prefix) => {
        await queue.removeSchedule('default', 'acme/c/default');
        await queue.recountSchedules(['default', 'eu-west']);
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('');
        await redis.del(`${prefix}:meerkat:schedules-counted`);
        await queue.recountSchedules(['default', 'eu-west']);
        expect(await queue.missingSchedules(['default', 'eu-west'])).toBe('marker');
      });
    });
  });
});

const HOUR = 3_600_000;

/** Schedules of `ids` whose next slot, the same for all, is `inMs` from now: one tick puts them in one batch. */
function schedulesDueIn(ids: readonly string[], inMs: number, everyMs = HOUR): RunSchedule[] {
  const offsetMs = (Date.now() + inMs) % everyMs;
  return ids.map((id) => ({
    id: `acme/${id}/default`,
    location: 'default',
    everyMs,
    offsetMs,
    data: { ...job, monitorId: id },
  }));
}

/** A run queue and its schedule store under a fresh prefix, with one of its BullMQ queues (`name`) to look into. */
function queueWithInsight(name: string, retrySeconds: number) {
  const prefix = testRedisPrefix();
  const capture = capturedLog();
  const queue = createBullmqRunQueue({ redisUrl: testRedisUrl(), prefix, log: capture.log, retrySeconds });
  const schedules = testStore(prefix);
  const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const inner = new Queue(name, { connection, prefix });
  const close = async () => {
    await schedules.close();
    await queue.close();
    await inner.close();
    connection.disconnect();
  };
  return { capture, queue, schedules, inner, close };
}

describe('slots in batch jobs', () => {
  async function withQueues(
    count: number,
    test: (queues: RunQueue[], schedules: ScheduleStore) => Promise<void>,
  ) {
    const prefix = testRedisPrefix();
    const queues = Array.from({ length: count }, () =>
      createBullmqRunQueue({ redisUrl: testRedisUrl(), prefix, log: capturedLog().log, retrySeconds: 10 }),
    );
    const schedules = testStore(prefix);
    try {
      await test(queues, schedules);
    } finally {
      await schedules.close();
      await Promise.all(queues.map((q) => q.close()));
    }
  }

  it('delivers every slot once, never before its time, across two consumers of the location', async () => {
    await withQueues(2, async ([a, b], schedules) => {
      const delivered: Array<{ by: string; job: DeliveredRunJob; at: number }> = [];
      const consume = (queue: RunQueue, by: string) =>
        queue.consume(
          ['default'],
          (d) => Promise.resolve(void delivered.push({ by, job: d, at: Date.now() })),
          {
            admission: testAdmission(5),
          },
        );
      const consumers = [consume(a!, 'a'), consume(b!, 'b')];
      try {
        // Twelve schedules, every 2 s, spread over the interval.
        for (let i = 0; i < 12; i += 1)
          await schedules.upsertSchedule({ ...schedulesDueIn([`m${i}`], 1_500 + i * 150, 2_000)[0]! });
        await eventually(() => Promise.resolve(delivered.length >= 36 ? true : undefined), 20_000);
      } finally {
        await Promise.all(consumers.map((c) => c.close()));
      }
      const ids = delivered.map((d) => d.job.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const { job: d, at } of delivered) {
        expect(d.id).toBe(`repeat:acme/${d.data.monitorId}/default:${d.slot}`);
        expect(d.dueAt.getTime()).toBe(Number(d.slot));
        expect(at).toBeGreaterThanOrEqual(d.dueAt.getTime());
        expect(d.delivery).toBe(1);
      }
      // Each schedule's slots follow one another on its grid, none skipped.
      for (let i = 0; i < 12; i += 1) {
        const slots = delivered
          .filter((d) => d.job.data.monitorId === `m${i}`)
          .map((d) => Number(d.job.slot))
          .sort((x, y) => x - y);
        expect(slots.slice(1).map((slot, k) => slot - slots[k]!)).toEqual(slots.slice(1).map(() => 2_000));
      }
    });
  });

  it('delivers again, alone, the slot whose handler found a dependency away; the others are done', async () => {
    await withQueues(1, async ([queue], schedules) => {
      const deliveries: Array<[string, number, string]> = [];
      const consumer = queue!.consume(
        ['default'],
        (d) => {
          deliveries.push([d.data.monitorId, d.delivery, d.id]);
          return d.data.monitorId === 'flaky' && d.delivery === 1
            ? Promise.reject(new DependencyUnavailableError('database', 'connect ECONNREFUSED'))
            : Promise.resolve();
        },
        { admission: testAdmission(5) },
      );
      try {
        for (const schedule of schedulesDueIn(['fine', 'flaky', 'other'], 2_500))
          await schedules.upsertSchedule(schedule);
        await eventually(() => Promise.resolve(deliveries.length >= 4 ? true : undefined), 15_000);
      } finally {
        await consumer.close();
      }
      const [, , flakyId] = deliveries.find(([id]) => id === 'flaky')!;
      expect(deliveries.map(([id, delivery]) => [id, delivery]).sort()).toEqual([
        ['fine', 1],
        ['flaky', 1],
        ['flaky', 2],
        ['other', 1],
      ]);
      // The same id on both deliveries: a result parked under it is found by the retry.
      expect(deliveries.filter(([id]) => id === 'flaky').map(([, , jobId]) => jobId)).toEqual([
        flakyId,
        flakyId,
      ]);
    });
  });

  it('hands the results of checked slots whose write found the database away to writeResults, and is done with the batch', async () => {
    await withQueues(1, async ([queue], schedules) => {
      const deliveries: string[] = [];
      const written: string[] = [];
      const away = () => new DependencyUnavailableError('database', 'connect ECONNREFUSED');
      const consumer = queue!.consume(
        ['default'],
        (d) => {
          deliveries.push(d.data.monitorId);
          const handedOver = { ...d.data, slot: d.slot ?? '', executed: { monitorId: d.data.monitorId } };
          return d.data.monitorId === 'fine'
            ? Promise.resolve()
            : Promise.reject(new ResultAwaitingWriteError(handedOver, { cause: away() }));
        },
        {
          admission: testAdmission(5),
          writeResults: (results) => {
            if (written.length === 0 && results.length > 0) {
              written.push('refused');
              return Promise.reject(away());
            }
            written.push(...results.map((r) => r.monitorId));
            return Promise.resolve();
          },
        },
      );
      try {
        for (const schedule of schedulesDueIn(['fine', 'parked-a', 'parked-b'], 2_500))
          await schedules.upsertSchedule(schedule);
        await eventually(() => Promise.resolve(written.length >= 3 ? true : undefined), 15_000);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      } finally {
        await consumer.close();
      }
      expect(deliveries.sort()).toEqual(['fine', 'parked-a', 'parked-b']);
      // The batch's slots are checked side by side: the parked results are handed over in the order their checks
      // ended, which either can win. Each is written once, after the refused write.
      expect(written[0]).toBe('refused');
      expect(written.slice(1).sort()).toEqual(['parked-a', 'parked-b']);
    });
  });

  it('writes the results waiting out a backoff as soon as a write works again, not when the backoff ends', async () => {
    const { capture, queue, schedules, inner: results, close } = queueWithInsight('default.results', 600);
    const written: string[] = [];
    const away = () => new DependencyUnavailableError('database', 'connect ECONNREFUSED');
    const consumer = queue.consume(
      ['default'],
      (d) =>
        d.data.monitorId === 'during'
          ? Promise.reject(
              new ResultAwaitingWriteError(
                { ...d.data, slot: d.slot ?? '', executed: {} },
                { cause: away() },
              ),
            )
          : Promise.resolve(),
      {
        admission: testAdmission(5),
        writeResults: (handed) => {
          written.push(...handed.map((r) => r.monitorId));
          return Promise.resolve();
        },
      },
    );
    try {
      // A results job late in an outage: its next try is a backoff away (an hour here, so only promotion brings it).
      const waiting = {
        organizationId: 'acme',
        monitorId: 'waiting',
        location: 'default',
        slot: '1',
        executed: {},
      };
      await results.add('results', { results: [waiting] }, { delay: HOUR, jobId: 'results:default:waiting' });
      // A check whose write finds the database away, then one whose write works.
      for (const schedule of schedulesDueIn(['during'], 1_500)) await schedules.upsertSchedule(schedule);
      for (const schedule of schedulesDueIn(['after'], 3_000)) await schedules.upsertSchedule(schedule);
      await eventually(() => Promise.resolve(written.includes('waiting') ? true : undefined), 15_000);
      expect(await results.getDelayedCount()).toBe(0);
      expect(capture.text()).toContain('database back: waiting results are written now');
    } finally {
      await consumer.close();
      await close();
    }
  });

  it('reports the slots no tick reached in time as skipped, late, and runs only the latest', async () => {
    await withQueues(1, async ([queue], schedules) => {
      const everyMs = 1_000;
      const offsetMs = 0;
      await schedules.upsertSchedule({
        id: 'acme/late/default',
        location: 'default',
        everyMs,
        offsetMs,
        data: job,
      });
      // No consumer ticks the location for a few slots.
      await new Promise((resolve) => setTimeout(resolve, 3_600));
      const skipped: Array<[number, string]> = [];
      const delivered: number[] = [];
      const consumer = queue!.consume(
        ['default'],
        (d) => Promise.resolve(void delivered.push(Number(d.slot))),
        {
          admission: testAdmission(5),
          onSkipped: (slots, reason) =>
            skipped.push(...slots.map((s) => [s.slotMs, reason] as [number, string])),
        },
      );
      try {
        await eventually(() =>
          Promise.resolve(skipped.length > 0 && delivered.length > 0 ? true : undefined),
        );
      } finally {
        await consumer.close();
      }
      const firstDelivered = Math.min(...delivered);
      expect(skipped.length).toBeGreaterThanOrEqual(2);
      expect(skipped.every(([slotMs, reason]) => reason === 'late' && slotMs < firstDelivered)).toBe(true);
      expect(new Set(skipped.map(([slotMs]) => slotMs)).size).toBe(skipped.length);
    });
  });

  it('drops the slot whose handler failed for any other reason, alone and at once', async () => {
    await withQueues(1, async ([queue], schedules) => {
      const handled: string[] = [];
      const dropped: Array<[string, DropReason]> = [];
      const consumer = queue!.consume(
        ['default'],
        (d) => {
          handled.push(d.data.monitorId);
          return d.data.monitorId === 'broken'
            ? Promise.reject(new Error('the definition cannot be read'))
            : Promise.resolve();
        },
        { admission: testAdmission(5), onDropped: (d, reason) => dropped.push([d.data.monitorId, reason]) },
      );
      try {
        for (const schedule of schedulesDueIn(['fine', 'broken', 'other'], 2_500))
          await schedules.upsertSchedule(schedule);
        await eventually(() => Promise.resolve(handled.length >= 3 ? true : undefined), 15_000);
        // Long enough for a retry, had there been one.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      } finally {
        await consumer.close();
      }
      expect(handled.sort()).toEqual(['broken', 'fine', 'other']);
      expect(dropped).toEqual([['broken', 'error']]);
    });
  });
});

describe('a location whose workers cannot keep up', () => {
  // Its one consumer is paused by its admission, so none promotes the delayed batches: the first of them overdue
  // by 5 s is how the tick sees it (docs/adr/0053-fair-lanes.md). Three monitors of one organization are in the
  // first fair lane, whose batches have a queue of their own (docs/adr/0064-first-lane-reserve.md).
  it('stops queuing slots when no worker takes its batches, says so, and goes on once they keep up', async () => {
    const { capture, queue, schedules, inner: batches, close } = queueWithInsight('default.slots-first', 10);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const delivered: string[] = [];
    // One place, and every check hangs until the gate opens: the consumer holds one batch and pauses.
    const consumer = queue.consume(['default'], (d) => (delivered.push(d.id), gate), {
      admission: testAdmission(1),
    });
    const logged = (msg: string) => entries(capture.lines).some((e) => e.msg === msg);
    try {
      for (const schedule of schedulesDueIn(['a', 'b', 'c'], 1_500, 1_000))
        await schedules.upsertSchedule(schedule);
      await eventually(
        () =>
          Promise.resolve(
            logged('the workers of this location are saturated: slots are skipped') || undefined,
          ),
        40_000,
      );
      // Ticks go on without queuing: the backlog stays where it was (a batch or two still delayed may join it).
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await batches.getJobCountByTypes('waiting', 'delayed')).toBeLessThanOrEqual(12);
      release();
      await eventually(
        () => Promise.resolve(logged('the workers of this location keep up again') || undefined),
        40_000,
      );
    } finally {
      release();
      await consumer.close();
      await close();
    }
    expect(new Set(delivered).size).toBe(delivered.length);
  }, 90_000);
});

describe('job retries', () => {
  it('double the pause up to 30 s and span at least the retry setting', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    for (const seconds of [10, 60, 600, 3600]) {
      const deliveries = deliveriesFor(seconds);
      const waited = Array.from({ length: deliveries - 1 }, (_, i) => retryDelayMs(i + 1)).reduce(
        (a, b) => a + b,
        0,
      );
      expect(waited).toBeGreaterThanOrEqual(seconds * 1000);
      expect(waited - retryDelayMs(deliveries - 1)).toBeLessThan(seconds * 1000);
    }
  });
});
