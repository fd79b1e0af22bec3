// The schedule store behind the BullMQ run queue (docs/adr/0023-batched-run-jobs.md), on the test Redis with
// explicit clocks: which slots a tick finds due, how schedules move on, and what a rewrite keeps.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSchedule } from '../../hub/src/runs/run-queue.js';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { BATCH_MAX, createRedisSchedules } from '../../hub/src/scheduling/redis-schedules.js';
import { capturedLog } from '../harness/captured-log.js';
import { eventually } from '../harness/eventually.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';

const T0 = 1_800_000_000_000;
const EVERY = 10_000;

function schedule(id: string, offsetMs = 500, everyMs = EVERY): RunSchedule {
  return {
    id,
    location: 'default',
    everyMs,
    offsetMs,
    data: { organizationId: 'acme', monitorId: id, location: 'default', version: 'v1' },
  };
}

describe('the Redis schedule store', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => {
    redis.disconnect();
  });
  const store = () => createRedisSchedules(redis, testRedisPrefix());

  /** One tick at `nowMs` looking `aheadMs` ahead: the slots found, and the schedules moved on. */
  async function tick(schedules: ReturnType<typeof store>, nowMs: number, aheadMs = 2_000) {
    const due = await schedules.due('default', nowMs + aheadMs, nowMs);
    await due.commit();
    return due.batches.flatMap((batch) => batch.slots.map((slot) => `${slot.id}@${slot.slotMs - T0}`));
  }

  it('finds each slot due within a tick once, on the grid of the schedule, then moves it on', async () => {
    const schedules = store();
    await schedules.upsert(schedule('a'), T0);
    await schedules.upsert(schedule('b', 3_000), T0);
    expect(await tick(schedules, T0 - 2_000)).toEqual([]);
    expect(await tick(schedules, T0)).toEqual(['a@500']);
    expect(await tick(schedules, T0 + 1_000)).toEqual(['b@3000']);
    expect(await tick(schedules, T0 + 2_000)).toEqual([]);
    expect(await tick(schedules, T0 + 9_000)).toEqual(['a@10500']);
  });

  it('keeps the next slot of a schedule written again with its timing, and moves it with another', async () => {
    const schedules = store();
    await schedules.upsert(schedule('a'), T0);
    expect(await tick(schedules, T0)).toEqual(['a@500']);
    // A new monitor version: the same timing, so neither the slot at 10.5 s is skipped nor 0.5 s repeated.
    await schedules.upsert({ ...schedule('a'), data: { ...schedule('a').data, version: 'v2' } }, T0 + 5_000);
    const due = await schedules.due('default', T0 + 11_000, T0 + 9_000);
    expect(due.batches[0]?.slots).toEqual([
      {
        id: 'a',
        slotMs: T0 + 10_500,
        data: { ...schedule('a').data, version: 'v2' },
        everyMs: schedule('a').everyMs,
      },
    ]);
    // Another offset: the first slot of the new timing after now.
    await schedules.upsert(schedule('a', 7_000), T0 + 5_000);
    expect(await tick(schedules, T0 + 5_000)).toEqual(['a@7000']);
  });

  it('gives a schedule no tick reached for a while its latest slot once, then its next ones', async () => {
    const schedules = store();
    await schedules.upsert(schedule('a'), T0);
    // Nobody ticked from T0 to T0 + 60 s: the slots at 0.5 … 50.5 s are gone but the latest, 50.5 s.
    expect(await tick(schedules, T0 + 60_000)).toEqual(['a@50500', 'a@60500']);
    expect(await tick(schedules, T0 + 61_000)).toEqual([]);
  });

  it('leaves a schedule rewritten between a tick’s read and its commit with its new timing', async () => {
    const schedules = store();
    await schedules.upsert(schedule('a'), T0);
    const due = await schedules.due('default', T0 + 2_000, T0);
    await schedules.upsert(schedule('a', 4_000), T0);
    await due.commit();
    expect(await tick(schedules, T0 + 2_000)).toEqual(['a@4000']);
  });

  it('finds the same slots again when a tick dies before its commit, in a batch of the same id', async () => {
    const schedules = store();
    for (let i = 0; i < BATCH_MAX + 10; i += 1) await schedules.upsert(schedule(`m${i}`, 800), T0);
    const first = await schedules.due('default', T0 + 2_000, T0);
    const again = await schedules.due('default', T0 + 2_000, T0);
    expect(first.batches.map((b) => b.slots.length)).toEqual([BATCH_MAX, 10]);
    expect(again.batches.map((b) => b.jobId)).toEqual(first.batches.map((b) => b.jobId));
    await again.commit();
    expect(await tick(schedules, T0)).toEqual([]);
  });

  it('forgets a removed schedule, and drops a next slot left without its definition', async () => {
    const prefix = testRedisPrefix();
    const schedules = createRedisSchedules(redis, prefix);
    await schedules.upsert(schedule('a'), T0);
    await schedules.upsert(schedule('b'), T0);
    await schedules.remove('default', 'a');
    await redis.hdel(`${prefix}:meerkat:default:schedules`, 'b');
    expect(await tick(schedules, T0)).toEqual([]);
    expect(await redis.zcard(`${prefix}:meerkat:default:next`)).toBe(0);
  });

  it('lets one consumer of a location tick each horizon', async () => {
    const schedules = store();
    expect(await schedules.claimTick('default', T0)).toBe(true);
    expect(await schedules.claimTick('default', T0)).toBe(false);
    expect(await schedules.claimTick('default', T0 + 1_000)).toBe(true);
    expect(await schedules.claimTick('eu-west', T0)).toBe(true);
  });
});

describe('schedules written by an earlier release as BullMQ job schedulers', () => {
  it('are listed as not current until a consumer of this release retires them', async () => {
    const prefix = testRedisPrefix();
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const bullmq = new Queue('default', { connection, prefix });
    const queue = createBullmqRunQueue({
      redisUrl: testRedisUrl(),
      prefix,
      log: capturedLog().log,
      retrySeconds: 10,
    });
    try {
      const old = schedule('acme/old/default');
      const other = schedule('acme/not-yet-written/default');
      for (const s of [old, other])
        await bullmq.upsertJobScheduler(s.id, { every: s.everyMs, offset: s.offsetMs }, { data: s.data });
      expect(await queue.listSchedules('default')).toContainEqual({
        id: old.id,
        everyMs: EVERY,
        offsetMs: 500,
        version: 'v1',
        current: false,
      });
      // The scheduler writes it (a reconcile); the old scheduler keeps running it for the old workers.
      await queue.upsertSchedule(old);
      expect((await bullmq.getJobSchedulers(0, -1)).map((s) => s.key).sort()).toEqual(
        [old.id, other.id].sort(),
      );
      // A consumer of this release ticks our keys, so it removes the old scheduler of every schedule in them.
      const consumer = queue.consume(['default'], () => Promise.resolve(), { concurrency: 1 });
      try {
        await eventually(async () =>
          (await bullmq.getJobSchedulers(0, -1)).length === 1 ? true : undefined,
        );
      } finally {
        await consumer.close();
      }
      expect((await bullmq.getJobSchedulers(0, -1)).map((s) => s.key)).toEqual([other.id]);
      expect(await queue.listSchedules('default')).toContainEqual({
        id: old.id,
        everyMs: EVERY,
        offsetMs: 500,
        version: 'v1',
        current: true,
      });
    } finally {
      await queue.close();
      await bullmq.close();
      connection.disconnect();
    }
  });
});
