// The schedule store behind the BullMQ run queue (docs/adr/0023-batched-run-jobs.md), on the test Redis with
// explicit clocks: which slots a tick finds due, how schedules move on, and what a rewrite keeps.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLaneCounter } from '../../hub/src/scheduling/fair-lanes.js';
import { BATCH_MAX, createRedisSchedules } from '../../hub/src/scheduling/redis-schedules.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { schedule } from './schedule-fixtures.js';

const T0 = 1_800_000_000_000;

/** A schedule of monitor `id` in `organizationId`. */
function ofOrganization(id: string, organizationId: string, offsetMs = 800) {
  const base = schedule(id, offsetMs);
  return { ...base, data: { ...base.data, organizationId } };
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
    // Each monitor of its own organization: all in the first lane, cut at BATCH_MAX.
    for (let i = 0; i < BATCH_MAX + 10; i += 1)
      await schedules.upsert(ofOrganization(`m${i}`, `org${i}`), T0);
    const first = await schedules.due('default', T0 + 2_000, T0);
    const again = await schedules.due('default', T0 + 2_000, T0);
    expect(first.batches.map((b) => [b.lane, b.slots.length])).toEqual([
      [1, BATCH_MAX],
      [1, 10],
    ]);
    expect(again.batches.map((b) => b.jobId)).toEqual(first.batches.map((b) => b.jobId));
    await again.commit();
    expect(await tick(schedules, T0)).toEqual([]);
  });

  it('puts an organization’s first slots of a window in the first lane and its later ones in lanes after', async () => {
    const schedules = store();
    // 210 slots of one organization at 0.8 s, then 3 of another at 0.9 s.
    for (let i = 0; i < BATCH_MAX + 10; i += 1) await schedules.upsert(schedule(`m${i}`, 800), T0);
    for (const id of ['x', 'y', 'z']) await schedules.upsert(ofOrganization(id, 'small', 900), T0);
    const lanes = createLaneCounter();
    const due = await schedules.due('default', T0 + 2_000, T0, lanes);
    const summary = due.batches.map((b) => [b.lane, [...new Set(b.slots.map((s) => s.data.organizationId))]]);
    // The small organization's later slots stay in the first lane beside the large one's first 16.
    expect(summary).toEqual([
      [1, ['acme', 'small']],
      [2, ['acme']],
      [3, ['acme']],
      [4, ['acme']],
    ]);
    expect(due.batches.map((b) => b.slots.length)).toEqual([16 + 3, 32, 64, 98]);
    // A second part of the same tick goes on counting: acme is past its first lanes.
    expect(lanes.laneOf('acme')).toBe(4);
    expect(lanes.laneOf('small')).toBe(1);
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
