// The contract of ScheduleStore (hub/src/runs/schedule-store.ts), run against both implementations: Redis (a key
// prefix of its own per store) and the in-process twin of `meerkat dev`. How a store's slots reach the run queue
// is in run-queue-conformance.test.ts; what only one of them does (Redis losing keys, long timers) in its own file.
import { describe, expect, it } from 'vitest';
import type { RunSchedule } from '../../hub/src/runs/run-queue.js';
import { capturedLog } from '../harness/captured-log.js';
import { openBullmqScheduling, openInProcessScheduling, type TestScheduling } from '../harness/scheduling.js';

type Log = ReturnType<typeof capturedLog>['log'];

const implementations: Array<{ name: string; open: (log: Log) => TestScheduling }> = [
  { name: 'Redis', open: (log) => openBullmqScheduling(log) },
  { name: 'in-process', open: (log) => openInProcessScheduling(log) },
];

function schedule(id: string, location = 'default'): RunSchedule {
  const data = { organizationId: 'acme', monitorId: id, location, version: 'v1' };
  return { id, location, everyMs: 3_600_000, offsetMs: 1_000, data };
}

describe.each(implementations)('the $name schedule store', ({ open }) => {
  async function withStore(test: (store: TestScheduling['schedules']) => Promise<void>) {
    const scheduling = open(capturedLog().log);
    try {
      await test(scheduling.schedules);
    } finally {
      await scheduling.close();
    }
  }

  it('keeps schedules by id, per location: a second upsert replaces, remove deletes', async () => {
    await withStore(async (store) => {
      await store.upsertSchedule(schedule('hourly'));
      await store.upsertSchedule({ ...schedule('hourly'), offsetMs: 2_000 });
      await store.upsertSchedule(schedule('elsewhere', 'eu-west'));
      expect(await store.listScheduleIds('default')).toEqual(['hourly']);
      expect(await store.listSchedules('default')).toEqual([
        { id: 'hourly', everyMs: 3_600_000, offsetMs: 2_000, version: 'v1', current: true },
      ]);
      await store.removeSchedule('default', 'hourly');
      expect(await store.listScheduleIds('default')).toEqual([]);
      expect(await store.listScheduleIds('eu-west')).toEqual(['elsewhere']);
    });
  });

  it('lists the monitor version each schedule carries, so a reconcile rewrites a changed one', async () => {
    await withStore(async (store) => {
      await store.upsertSchedule(schedule('versioned'));
      await store.upsertSchedule({
        ...schedule('versioned'),
        data: { ...schedule('versioned').data, version: 'v2' },
      });
      expect((await store.listSchedules('default')).map((s) => s.version)).toEqual(['v2']);
    });
  });

  it('says its schedules are present once a full reconcile marked them so', async () => {
    await withStore(async (store) => {
      await store.upsertSchedule(schedule('counted'));
      await store.markSchedulesPresent(['default']);
      expect(await store.missingSchedules(['default'])).toBe('');
      await store.upsertSchedule(schedule('added'));
      await store.recountSchedules(['default']);
      expect(await store.missingSchedules(['default'])).toBe('');
    });
  });
});
