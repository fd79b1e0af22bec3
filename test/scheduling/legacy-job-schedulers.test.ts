// Job schedulers of BullMQ itself, written by releases before the batch jobs: what a store and a consumer of this
// release do with them (hub/src/scheduling/legacy-job-schedulers.ts). Goes with that file.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { capturedLog } from '../harness/captured-log.js';
import { eventually } from '../harness/eventually.js';
import { testRedisPrefix, testRedisUrl } from '../harness/database.js';
import { EVERY, schedule } from './schedule-fixtures.js';
import { openBullmqScheduling, testAdmission } from '../harness/scheduling.js';

describe('schedules written by an earlier release as BullMQ job schedulers', () => {
  it('are listed as not current until a consumer of this release retires them', async () => {
    const prefix = testRedisPrefix();
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const bullmq = new Queue('default', { connection, prefix });
    const { queue, schedules: store, close } = openBullmqScheduling(capturedLog().log, { prefix });
    try {
      const old = schedule('acme/old/default');
      const other = schedule('acme/not-yet-written/default');
      for (const s of [old, other])
        await bullmq.upsertJobScheduler(s.id, { every: s.everyMs, offset: s.offsetMs }, { data: s.data });
      expect(await store.listSchedules('default')).toContainEqual({
        id: old.id,
        everyMs: EVERY,
        offsetMs: 500,
        version: 'v1',
        current: false,
      });
      // The scheduler writes it (a reconcile); the old scheduler keeps running it for the old workers.
      await store.upsertSchedule(old);
      expect((await bullmq.getJobSchedulers(0, -1)).map((s) => s.key).sort()).toEqual(
        [old.id, other.id].sort(),
      );
      // A consumer of this release ticks our keys, so it removes the old scheduler of every schedule in them.
      const consumer = queue.consume(['default'], () => Promise.resolve(), { admission: testAdmission(1) });
      try {
        await eventually(async () =>
          (await bullmq.getJobSchedulers(0, -1)).length === 1 ? true : undefined,
        );
      } finally {
        await consumer.close();
      }
      expect((await bullmq.getJobSchedulers(0, -1)).map((s) => s.key)).toEqual([other.id]);
      expect(await store.listSchedules('default')).toContainEqual({
        id: old.id,
        everyMs: EVERY,
        offsetMs: 500,
        version: 'v1',
        current: true,
      });
    } finally {
      await close();
      await bullmq.close();
      connection.disconnect();
    }
  });
});
