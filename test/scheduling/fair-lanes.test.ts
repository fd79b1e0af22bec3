// Fair lanes (docs/adr/0053-fair-lanes.md): which lane each slot of a window takes, as a property over random
// organizations (the seed is printed, FAIR_LANES_SEED replays it), and a location whose one consumer is saturated
// by one organization on the test Redis, where a small organization keeps every slot.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { RunSchedule, SkipReason } from '../../hub/src/runs/run-queue.js';
import { SlotSupersededError } from '../../hub/src/runs/slot-superseded-error.js';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { createBullmqScheduleStore } from '../../hub/src/scheduling/bullmq-schedule-store.js';
import { createLaneCounter, LANE_QUANTUM, LANES, laneOfIndex } from '../../hub/src/scheduling/fair-lanes.js';
import { createAdmission } from '../../hub/src/worker/admission.js';
import { capturedLog } from '../harness/captured-log.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { seededRandom } from '../harness/seeded-random.js';

/** Slots of one organization in lanes 1 to `lane`: 16, then twice as many more each lane, all past the last. */
const capOf = (lane: number) => (lane >= LANES ? Infinity : LANE_QUANTUM * (2 ** lane - 1));

describe('fair lanes', () => {
  it('give an organization 16 slots of a window in the first lane and twice as many in each next', () => {
    const lanes = [0, 15, 16, 47, 48, 111, 112, 2_031, 2_032, 1_000_000].map(laneOfIndex);
    expect(lanes).toEqual([1, 1, 2, 2, 3, 3, 4, 7, 8, 8]);
  });

  it('serve every organization alike up to any lane: a cut at a lane is max-min fair', () => {
    const seed = Number(process.env.FAIR_LANES_SEED ?? Date.now() % 1_000_000);
    console.log(`fair lanes property: FAIR_LANES_SEED=${seed}`);
    const random = seededRandom(seed);
    for (let round = 0; round < 200; round += 1) {
      // Organizations of 1 to 5,000 slots in a window, their slots interleaved in a random order of times.
      const sizes = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Math.ceil(5_000 * random() ** 3),
      );
      const order = sizes.flatMap((size, org) => Array.from({ length: size }, () => `org${org}`));
      for (let i = order.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const counter = createLaneCounter();
      const inLanes = new Map<string, number[]>();
      for (const org of order) {
        const lane = counter.laneOf(org);
        const counts = inLanes.get(org) ?? Array.from({ length: LANES + 1 }, () => 0);
        counts[lane] = (counts[lane] ?? 0) + 1;
        inLanes.set(org, counts);
      }
      // Workers that take lanes 1 to L give each organization all its slots, or the same cap as any other.
      for (let lane = 1; lane <= LANES; lane += 1)
        sizes.forEach((size, org) => {
          const counts = inLanes.get(`org${org}`) ?? [];
          const served = counts.slice(1, lane + 1).reduce((a, b) => a + b, 0);
          expect(served, `seed ${seed}, round ${round}, org${org}, lane ${lane}`).toBe(
            Math.min(size, capOf(lane)),
          );
        });
    }
  });
});

describe('a location one organization saturates', () => {
  const EVERY_MS = 4_000;
  const schedulesOf = (organizationId: string, count: number, random: () => number): RunSchedule[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `${organizationId}/m${i}/default`,
      location: 'default',
      everyMs: EVERY_MS,
      offsetMs: Math.floor(random() * EVERY_MS),
      data: { organizationId, monitorId: `m${i}`, location: 'default' },
    }));

  it('checks every slot of a small organization while the large one’s are shed and skipped', async () => {
    const seed = Number(process.env.FAIR_LANES_SEED ?? Date.now() % 1_000_000);
    console.log(`saturated location: FAIR_LANES_SEED=${seed}`);
    const random = seededRandom(seed);
    const prefix = testRedisPrefix();
    const log = capturedLog().log;
    const queue = createBullmqRunQueue({ redisUrl: testRedisUrl(), prefix, log, retrySeconds: 10 });
    const store = createBullmqScheduleStore({ redisUrl: testRedisUrl(), prefix, log });
    // One check place and 10 ms a check: about 100 checks a second, against 200 slots a second of the large one.
    const admission = createAdmission({ checks: 1, heldSlots: 200 });
    const checked: Array<[string, number]> = [];
    const lost: Array<[string, number, SkipReason]> = [];
    const consumer = queue.consume(
      ['default'],
      (delivered) =>
        admission.checks.run(
          async () => {
            if (Date.now() >= Number(delivered.slot) + EVERY_MS) throw new SlotSupersededError();
            await sleep(10);
            checked.push([delivered.data.organizationId, Number(delivered.slot)]);
          },
          delivered.data.organizationId,
          true,
        ),
      {
        admission,
        onSkipped: (slots, reason) =>
          lost.push(
            ...slots.map((s): [string, number, SkipReason] => [s.data.organizationId, s.slotMs, reason]),
          ),
      },
    );
    try {
      for (const schedule of [...schedulesOf('large', 800, random), ...schedulesOf('small', 4, random)])
        await store.upsertSchedule(schedule);
      // Two periods to saturate, then three periods counted; slots of the window are done a period after it.
      await sleep(2 * EVERY_MS);
      const fromMs = Date.now();
      await sleep(3 * EVERY_MS);
      const toMs = Date.now();
      await sleep(EVERY_MS + 2_000);
      const inWindow = <T extends [string, number, ...unknown[]]>(rows: T[], org: string) =>
        rows.filter(([o, slotMs]) => o === org && slotMs >= fromMs && slotMs < toMs);
      // The large organization lost slots: the location was saturated.
      expect(inWindow(lost, 'large').length).toBeGreaterThan(0);
      // The small one lost none, and each of its 4 schedules was checked at every slot of the window.
      expect(inWindow(lost, 'small')).toEqual([]);
      const small = inWindow(checked, 'small');
      expect(small.length).toBeGreaterThanOrEqual(4 * Math.floor((toMs - fromMs) / EVERY_MS));
      expect(new Set(small.map(([, slotMs]) => slotMs)).size).toBe(small.length);
    } finally {
      await consumer.close();
      await store.close();
      await queue.close();
    }
  }, 60_000);

  it('takes a small organization’s first-lane slots while later jobs fill the worker and their writes wait', async () => {
    const prefix = testRedisPrefix();
    const log = capturedLog().log;
    const queue = createBullmqRunQueue({ redisUrl: testRedisUrl(), prefix, log, retrySeconds: 10 });
    const store = createBullmqScheduleStore({ redisUrl: testRedisUrl(), prefix, log });
    // Later jobs stop at 36 of 40 held; the first lane keeps 4 (docs/adr/0064-first-lane-reserve.md), room for the
    // small organization's batches (3 slots at most: a tick's window and lookahead of a schedule every second).
    const admission = createAdmission({ checks: 50, heldSlots: 40 });
    let openWrites = () => {};
    const writes = new Promise<void>((resolve) => (openWrites = resolve));
    const checked: number[] = [];
    const consumer = queue.consume(
      ['default'],
      async (delivered) => {
        // Manual runs of the large organization: checked, their writes held until the end of the test.
        if (delivered.slot === undefined) return admission.awaitWrite(() => writes);
        checked.push(Number(delivered.slot));
      },
      { admission },
    );
    try {
      for (let i = 0; i < 45; i += 1)
        await queue.enqueue({
          organizationId: 'large',
          monitorId: `m${i}`,
          location: 'default',
          runId: `run_${i}`,
        });
      await vi.waitFor(() => expect(admission.state().held).toBe(36), { timeout: 10_000 });
      // The worker is full and paused for its later jobs (36 is past half of 40); the small organization's slots
      // come in the first lane, and are checked with every write still waiting.
      const fromMs = Date.now();
      await store.upsertSchedule({
        id: 'small/m0/default',
        location: 'default',
        everyMs: 1_000,
        offsetMs: 0,
        data: { organizationId: 'small', monitorId: 'm0', location: 'default' },
      });
      await vi.waitFor(
        () => expect(checked.filter((slotMs) => slotMs >= fromMs).length).toBeGreaterThanOrEqual(3),
        {
          timeout: 15_000,
        },
      );
      expect(admission.state()).toMatchObject({ awaitingWrite: 36 });
    } finally {
      openWrites();
      await consumer.close();
      await store.close();
      await queue.close();
    }
  }, 60_000);
});
