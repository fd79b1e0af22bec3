// The contract of RunQueue (hub/src/runs/run-queue.ts), run against both implementations: BullMQ on the test Redis
// (a key prefix of its own per queue) and the in-process twin of `meerkat dev`, each with the schedule store it is
// paired with (schedule-store-conformance.test.ts has the store's own contract). What only one of them does
// (Redis away, timers past 24.8 days) is in its own file.
import { describe, expect, it } from 'vitest';
import { ResultAwaitingWriteError } from '../../hub/src/runs/result-awaiting-write-error.js';
import type {
  DeliveredRunJob,
  DropReason,
  HandedOverResult,
  RunQueue,
  RunSchedule,
  SkipReason,
} from '../../hub/src/runs/run-queue.js';
import { SlotSupersededError } from '../../hub/src/runs/slot-superseded-error.js';
import { DependencyUnavailableError } from '../../hub/src/system/dependency-errors.js';
import { capturedLog } from '../harness/captured-log.js';
import { eventually } from '../harness/eventually.js';
import {
  openBullmqScheduling,
  openInProcessScheduling,
  type TestScheduling,
  testAdmission,
} from '../harness/scheduling.js';

type Log = ReturnType<typeof capturedLog>['log'];

const implementations: Array<{ name: string; open: (log: Log) => TestScheduling }> = [
  { name: 'BullMQ', open: (log) => openBullmqScheduling(log) },
  { name: 'in-process', open: (log) => openInProcessScheduling(log) },
];

const job = { organizationId: 'acme', monitorId: 'm', location: 'default' } as const;
const entries = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>);

function schedule(id: string, location = 'default'): RunSchedule {
  return { id, location, everyMs: 3_600_000, offsetMs: 1_000, data: { ...job, monitorId: id, location } };
}

describe.each(implementations)('the $name run queue', ({ open }) => {
  async function withQueue(
    test: (queue: RunQueue, lines: readonly string[], scheduling: TestScheduling) => Promise<void>,
  ) {
    const capture = capturedLog();
    const scheduling = open(capture.log);
    try {
      await test(scheduling.queue, capture.lines, scheduling);
    } finally {
      await scheduling.close();
    }
  }

  it('delivers an enqueued run to a consumer of its location, once, as delivery 1 of the run id', async () => {
    await withQueue(async (queue) => {
      const delivered: DeliveredRunJob[] = [];
      const consumer = queue.consume(['default'], (d) => Promise.resolve(void delivered.push(d)), {
        admission: testAdmission(1),
      });
      try {
        await queue.enqueue({ ...job, location: 'eu-west', runId: 'run_elsewhere' });
        await queue.enqueue({ ...job, runId: 'run_here' });
        await eventually(() => Promise.resolve(delivered.length > 0 ? true : undefined));
        expect(delivered).toMatchObject([
          { id: 'run_here', data: { ...job, runId: 'run_here' }, slot: undefined, delivery: 1 },
        ]);
      } finally {
        await consumer.close();
      }
    });
  });

  it('drops a job whose handler fails for any reason but a dependency at once, and goes on', async () => {
    await withQueue(async (queue, lines) => {
      const handled: Array<[string | undefined, number]> = [];
      const dropped: Array<[string | undefined, DropReason]> = [];
      const consumer = queue.consume(
        ['default'],
        (d) => {
          handled.push([d.data.runId, d.delivery]);
          return d.data.runId === 'run_broken'
            ? Promise.reject(new Error('the definition cannot be read'))
            : Promise.resolve();
        },
        { admission: testAdmission(1), onDropped: (d, reason) => dropped.push([d.data.runId, reason]) },
      );
      try {
        await queue.enqueue({ ...job, runId: 'run_broken' });
        await queue.enqueue({ ...job, runId: 'run_fine' });
        // BullMQ holds two jobs at once here (heldSlots 2): run_fine may be handled before run_broken's failure is
        // recorded, so wait for both the second handling and the drop.
        await eventually(() =>
          Promise.resolve(handled.length === 2 && dropped.length === 1 ? true : undefined),
        );
        const failures = entries(lines).filter((e) => e.msg === 'run job dropped');
        expect(failures).toMatchObject([
          {
            level: 50,
            ...job,
            runId: 'run_broken',
            reason: 'error',
            attempt: 1,
            err: { message: 'the definition cannot be read' },
          },
        ]);
        expect(handled).toEqual([
          ['run_broken', 1],
          ['run_fine', 1],
        ]);
        expect(dropped).toEqual([['run_broken', 'error']]);
      } finally {
        await consumer.close();
      }
    });
  });

  it('delivers a job again, counting deliveries, while its handler finds a dependency away', async () => {
    await withQueue(async (queue, lines) => {
      const deliveries: number[] = [];
      const consumer = queue.consume(
        ['default'],
        (d) => {
          deliveries.push(d.delivery);
          return d.delivery < 3
            ? Promise.reject(new DependencyUnavailableError('database', 'connect ECONNREFUSED'))
            : Promise.resolve();
        },
        { admission: testAdmission(1) },
      );
      try {
        await queue.enqueue({ ...job, runId: 'run_retried' });
        await eventually(() => Promise.resolve(deliveries.length === 3 ? true : undefined));
        expect(deliveries).toEqual([1, 2, 3]);
        expect(entries(lines).filter((e) => e.msg === 'run job will be retried')).toHaveLength(2);
        expect(entries(lines).some((e) => e.msg === 'run job dropped')).toBe(false);
      } finally {
        await consumer.close();
      }
    });
  });

  it('gives a result whose write found the database away to writeResults until written, never to the handler again', async () => {
    await withQueue(async (queue) => {
      const handled: string[] = [];
      const writes: Array<[string, number]> = [];
      const handedOver: HandedOverResult = {
        organizationId: 'acme',
        monitorId: 'checked',
        location: 'default',
        slot: '1767268800000',
        executed: { checked: 'at its time' },
      };
      const consumer = queue.consume(
        ['default'],
        (d) => {
          handled.push(d.id);
          const away = new DependencyUnavailableError('database', 'connect ECONNREFUSED');
          return Promise.reject(new ResultAwaitingWriteError(handedOver, { cause: away }));
        },
        {
          admission: testAdmission(1),
          writeResults: (results) => {
            writes.push([results.map((r) => r.monitorId).join(), writes.length + 1]);
            return writes.length < 3
              ? Promise.reject(new DependencyUnavailableError('database', 'connect ECONNREFUSED'))
              : Promise.resolve();
          },
        },
      );
      try {
        await queue.enqueueSlot(schedule('checked'), 1_767_268_800_000);
        await eventually(() => Promise.resolve(writes.length === 3 ? true : undefined), 15_000);
        // Long enough for another write or delivery, had there been one.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(handled).toEqual(['repeat:checked:1767268800000']);
        expect(writes).toEqual([
          ['checked', 1],
          ['checked', 2],
          ['checked', 3],
        ]);
      } finally {
        await consumer.close();
      }
    });
  });

  it('delivers the job of one slot of a schedule, due at the slot, under the scheduler’s job id', async () => {
    await withQueue(async (queue) => {
      const delivered: DeliveredRunJob[] = [];
      const consumer = queue.consume(['default'], (d) => Promise.resolve(void delivered.push(d)), {
        admission: testAdmission(1),
      });
      try {
        const slotMs = Date.UTC(2026, 0, 1, 12);
        await queue.enqueueSlot(schedule('missed'), slotMs);
        await eventually(() => Promise.resolve(delivered.length > 0 ? true : undefined));
        expect(delivered).toMatchObject([
          { id: `repeat:missed:${slotMs}`, slot: String(slotMs), dueAt: new Date(slotMs), delivery: 1 },
        ]);
        expect(delivered[0]?.data).toEqual(schedule('missed').data);
      } finally {
        await consumer.close();
      }
    });
  });

  it('counts a scheduled slot its handler sheds (SlotSupersededError) as shed, with the period it carried', async () => {
    await withQueue(async (queue, _lines, { schedules }) => {
      const delivered: DeliveredRunJob[] = [];
      const skipped: Array<{ slotMs: number; reason: SkipReason }> = [];
      const consumer = queue.consume(
        ['default'],
        (d) => {
          delivered.push(d);
          return Promise.reject(new SlotSupersededError());
        },
        {
          admission: testAdmission(1),
          onSkipped: (slots, reason) => skipped.push(...slots.map(({ slotMs }) => ({ slotMs, reason }))),
        },
      );
      try {
        await schedules.upsertSchedule({ ...schedule('busy'), everyMs: 2_000, offsetMs: 0 });
        await eventually(() => Promise.resolve(skipped.length > 0 ? true : undefined), 15_000);
        expect(delivered[0]?.everyMs).toBe(2_000);
        expect(skipped[0]).toEqual({ slotMs: Number(delivered[0]?.slot), reason: 'shed' });
      } finally {
        await consumer.close();
      }
    });
  });
});
