import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RunJobData, RunSchedule } from '../runs/run-queue.js';
import { createLaneCounter, type LaneCounter } from './fair-lanes.js';
import { latestSlotMs } from './schedules.js';

/** A schedule as the store keeps it: its timing and the data each of its slots carries. */
type StoredSchedule = Pick<RunSchedule, 'everyMs' | 'offsetMs' | 'data'>;

/** One slot of one schedule, as a batch job carries it. */
export interface DueSlot {
  /** The schedule's id. */
  id: string;
  slotMs: number;
  data: RunJobData;
  /** The schedule's period, by which the slot is superseded (absent in batches queued by earlier releases). */
  everyMs?: number;
}

/** The slots of one location and one fair lane that fall due within a tick's window, cut into batch jobs. */
export interface DueBatch {
  /** Deterministic: a second tick that finds the same slots makes the same id, and the queue keeps one job. */
  jobId: string;
  /** Its fair lane (fair-lanes.ts), the batch job's priority: 1 is taken first. */
  lane: number;
  slots: DueSlot[];
}

/** Schedules read per script call; a tick reads again until it gets fewer. */
const READ_LIMIT = 2_000;
/** How long a tick's claim is kept: past the horizon it names, when no consumer computes that horizon again. */
const CLAIM_MS = 10_000;
/** Slots per batch job at most, so several workers share a busy second. */
export const BATCH_MAX = 200;

// Writes a schedule. Its next slot is kept when its timing is unchanged, so rewriting a schedule (a new monitor
// version) neither skips nor repeats a slot; otherwise it is the first slot after now.
const UPSERT_LUA = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if old then
  local o = cjson.decode(old)
  if o.everyMs == tonumber(ARGV[3]) and o.offsetMs == tonumber(ARGV[4]) and redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
  end
end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1`;

// The schedules whose next slot is at or before the horizon, with their definitions.
const DUE_LUA = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
if #due == 0 then return {} end
local ids = {}
for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
return {due, redis.call('HMGET', KEYS[2], unpack(ids))}`;

// Moves each schedule's next slot on, but only if it is still the one read (ARGV: id, read, next, ...; next -1
// removes a schedule without definition): a schedule rewritten meanwhile keeps its new timing.
const ADVANCE_LUA = `
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    if tonumber(ARGV[i + 2]) < 0 then redis.call('ZREM', KEYS[1], ARGV[i])
    else redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i]) end
  end
end
return 0`;

// Whether the schedules of the locations (KEYS: marker, then defs and next of each location; ARGV: the locations)
// are all still there: the marker of the last full reconcile exists, each location has a next slot for every
// definition, and no fewer definitions than the marker counted. Redis loses whole keys (eviction, FLUSHDB, a
// failover to a replica that lags), so a lost key shows as a missing marker or a count that no longer matches.
const PRESENT_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'marker' end
for i = 1, #ARGV do
  local defs = redis.call('HLEN', KEYS[2 * i])
  if redis.call('ZCARD', KEYS[2 * i + 1]) ~= defs then return 'next:' .. ARGV[i] end
  local counted = tonumber(redis.call('HGET', KEYS[1], 'count:' .. ARGV[i]) or '0')
  if defs < counted then return 'schedules:' .. ARGV[i] end
end
return ''`;

// Counts each location's schedules into the marker (KEYS: marker, then defs of each location; ARGV[1]: 1 for a
// full reconcile, which writes the marker anew, 0 for an outbox drain, which only updates a marker that exists:
// a drain after Redis lost everything must not make the loss look healed).
const COUNT_LUA = `
if ARGV[1] == '1' then redis.call('DEL', KEYS[1]) redis.call('HSET', KEYS[1], 'at', ARGV[2])
elseif redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #KEYS do redis.call('HSET', KEYS[1], 'count:' .. ARGV[i + 1], redis.call('HLEN', KEYS[i])) end
return 1`;

// Claims slots for one owner (KEYS: a claim key per slot; ARGV: owner, milliseconds to keep the claim): a slot
// no one has claimed, or this owner has, is won (its claim set or renewed); one another owner holds is not.
// Answers the 1-based indices of the slots won.
const CLAIM_SLOTS_LUA = `
local won = {}
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'NX', 'PX', ARGV[2]) then won[#won + 1] = i
  elseif redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    won[#won + 1] = i
  end
end
return won`;

/**
 * How long a slot's claim is kept: past any second path to the same slot (a tick's add that Redis ran after the
 * tick gave up on it, a stalled batch, a restore), short enough that claims of 1,000 checks a second stay a few
 * tens of megabytes.
 */
const SLOT_CLAIM_MS = 120_000;
/** Claims per script call: a tick's skipped slots after an outage can be tens of thousands. */
const CLAIM_CHUNK = 1_000;

interface ScheduleCommands {
  meerkatClaimSlots(...keysAndArgs: Array<string | number>): Promise<number[]>;
  meerkatSchedulesPresent(...keysAndArgs: Array<string | number>): Promise<string>;
  meerkatCountSchedules(...keysAndArgs: Array<string | number>): Promise<number>;
  meerkatUpsertSchedule(defs: string, next: string, ...args: Array<string | number>): Promise<number>;
  meerkatDueSchedules(
    next: string,
    defs: string,
    horizon: number,
    limit: number,
  ): Promise<[] | [string[], Array<string | null>]>;
  meerkatAdvanceSchedules(next: string, ...args: Array<string | number>): Promise<number>;
}

/**
 * The schedules of every location in Redis, beside BullMQ's queues (docs/adr/0023-batched-run-jobs.md): a hash of
 * definitions and a sorted set of each schedule's next slot, per location. A tick turns the slots due within its
 * window into batch jobs, then moves those schedules on: a process that dies between the two leaves them due,
 * and the next tick makes the same jobs again (at least once; the run's slot key keeps the row once).
 */
export function createRedisSchedules(redis: Redis, prefix: string) {
  redis.defineCommand('meerkatUpsertSchedule', { numberOfKeys: 2, lua: UPSERT_LUA });
  redis.defineCommand('meerkatDueSchedules', { numberOfKeys: 2, lua: DUE_LUA });
  redis.defineCommand('meerkatAdvanceSchedules', { numberOfKeys: 1, lua: ADVANCE_LUA });
  redis.defineCommand('meerkatSchedulesPresent', { lua: PRESENT_LUA });
  redis.defineCommand('meerkatCountSchedules', { lua: COUNT_LUA });
  redis.defineCommand('meerkatClaimSlots', { lua: CLAIM_SLOTS_LUA });
  const commands = redis as unknown as ScheduleCommands;
  const keys = (location: string) => ({
    defs: `${prefix}:meerkat:${location}:schedules`,
    next: `${prefix}:meerkat:${location}:next`,
    tick: `${prefix}:meerkat:${location}:tick`,
    claims: `${prefix}:meerkat:${location}:slot`,
  });

  return {
    async upsert(schedule: RunSchedule, nowMs: number): Promise<void> {
      const { defs, next } = keys(schedule.location);
      const stored: StoredSchedule = {
        everyMs: schedule.everyMs,
        offsetMs: schedule.offsetMs,
        data: schedule.data,
      };
      const first = latestSlotMs(schedule, nowMs) + schedule.everyMs;
      await commands.meerkatUpsertSchedule(
        defs,
        next,
        schedule.id,
        JSON.stringify(stored),
        schedule.everyMs,
        schedule.offsetMs,
        first,
      );
    },

    async remove(location: string, id: string): Promise<void> {
      const { defs, next } = keys(location);
      await redis.multi().hdel(defs, id).zrem(next, id).exec();
    },

    /** Every schedule of `location`; `lost` when its definition is kept but its next slot is gone. */
    async list(location: string): Promise<Array<{ id: string; lost: boolean } & StoredSchedule>> {
      const { defs, next } = keys(location);
      const [all, slotted] = await Promise.all([redis.hgetall(defs), redis.zrange(next, '0', '-1')]);
      const hasNext = new Set(slotted);
      return Object.entries(all).map(([id, json]) => ({
        id,
        lost: !hasNext.has(id),
        ...(JSON.parse(json) as StoredSchedule),
      }));
    },

    /** Why the schedules of `locations` are not all there ('' when they are): see PRESENT_LUA. */
    async missing(marker: string, locations: readonly string[]): Promise<string> {
      const locationKeys = locations.flatMap((l) => [keys(l).defs, keys(l).next]);
      return commands.meerkatSchedulesPresent(1 + locationKeys.length, marker, ...locationKeys, ...locations);
    },

    /** Records each location's schedule count in the marker: anew (`full`), or only into a marker that exists. */
    async count(marker: string, locations: readonly string[], full: boolean): Promise<void> {
      const defs = locations.map((l) => keys(l).defs);
      await commands.meerkatCountSchedules(
        1 + defs.length,
        marker,
        ...defs,
        full ? 1 : 0,
        new Date().toISOString(),
        ...locations,
      );
    },

    /**
     * Takes the tick of `location` up to `horizonMs` when no other consumer has: every consumer of a location
     * computes the same horizon in a period, and one of them ticks it.
     */
    async claimTick(location: string, horizonMs: number): Promise<boolean> {
      return (await redis.set(`${keys(location).tick}:${horizonMs}`, '1', 'PX', CLAIM_MS, 'NX')) === 'OK';
    },

    /**
     * Claims `slots` for `owner` (a job id, or what skipped them): each slot is decided by one owner, the first to
     * claim it, however many paths lead to it. Resolves with the slots won, in their order.
     */
    async claimSlots<T extends { id: string; slotMs: number }>(
      location: string,
      owner: string,
      slots: readonly T[],
    ): Promise<T[]> {
      const won: T[] = [];
      for (let start = 0; start < slots.length; start += CLAIM_CHUNK) {
        const part = slots.slice(start, start + CLAIM_CHUNK);
        const claimKeys = part.map((slot) => `${keys(location).claims}:${slot.id}:${slot.slotMs}`);
        const indices = await commands.meerkatClaimSlots(
          claimKeys.length,
          ...claimKeys,
          owner,
          SLOT_CLAIM_MS,
        );
        for (const index of indices) won.push(part[index - 1]!);
      }
      return won;
    },

    async has(location: string, id: string): Promise<boolean> {
      return (await redis.hexists(keys(location).defs, id)) === 1;
    },

    /**
     * The slots of `location` due at or before `horizonMs`, cut into batches by fair lane, and a `commit` that
     * moves their schedules on once the batches are queued. A schedule whose next slot has already passed (no
     * consumer ticked for a while) runs its latest slot up to `nowMs` once, not every slot it missed. A tick that
     * reads in several parts passes one `lanes` counter to each.
     */
    async due(location: string, horizonMs: number, nowMs: number, lanes: LaneCounter = createLaneCounter()) {
      const { defs, next } = keys(location);
      const reply = await commands.meerkatDueSchedules(next, defs, horizonMs, READ_LIMIT);
      const slots: DueSlot[] = [];
      const skipped: DueSlot[] = [];
      const advances: Array<string | number> = [];
      if (reply.length === 2) {
        const [due, definitions] = reply;
        for (let i = 0; i < definitions.length; i += 1) {
          const id = due[2 * i] as string;
          const read = Number(due[2 * i + 1]);
          const json = definitions[i];
          if (json === null || json === undefined) {
            advances.push(id, read, -1);
            continue;
          }
          const schedule = JSON.parse(json) as StoredSchedule;
          let slotMs = read < nowMs ? Math.max(read, latestSlotMs(schedule, nowMs)) : read;
          for (let missed = read; missed < slotMs; missed += schedule.everyMs)
            skipped.push({ id, slotMs: missed, data: schedule.data });
          for (; slotMs <= horizonMs; slotMs += schedule.everyMs)
            slots.push({ id, slotMs, data: schedule.data, everyMs: schedule.everyMs });
          advances.push(id, read, slotMs);
        }
      }
      return {
        batches: batchesOf(horizonMs, slots, lanes),
        /** Slots passed over: no tick reached them in time, and only each schedule's latest runs. */
        skipped,
        /** Whether the read was full: more may be due. */
        more: advances.length / 3 >= READ_LIMIT,
        commit: async () => {
          if (advances.length > 0) await commands.meerkatAdvanceSchedules(next, ...advances);
        },
      };
    },
  };
}

// The slots in the order of their times, each organization's counted into its lanes in that order; each lane cut
// into batches. BullMQ takes a custom job id with a colon only in three parts, as its own `repeat:<id>:<millis>`.
function batchesOf(horizonMs: number, slots: DueSlot[], lanes: LaneCounter): DueBatch[] {
  slots.sort((a, b) => a.slotMs - b.slotMs || a.id.localeCompare(b.id));
  const byLane = new Map<number, DueSlot[]>();
  for (const slot of slots) {
    const lane = lanes.laneOf(slot.data.organizationId);
    const inLane = byLane.get(lane);
    if (inLane === undefined) byLane.set(lane, [slot]);
    else inLane.push(slot);
  }
  const batches: DueBatch[] = [];
  for (const [lane, inLane] of [...byLane].sort(([a], [b]) => a - b))
    for (let start = 0; start < inLane.length; start += BATCH_MAX) {
      const part = inLane.slice(start, start + BATCH_MAX);
      const hash = createHash('sha1');
      for (const slot of part) hash.update(`${slot.id}@${slot.slotMs}\n`);
      batches.push({ jobId: `batch:${horizonMs}:${hash.digest('hex').slice(0, 16)}`, lane, slots: part });
    }
  return batches;
}

export type RedisSchedules = ReturnType<typeof createRedisSchedules>;
