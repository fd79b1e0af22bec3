import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { shortReason } from '../system/dependency-errors.js';
import { deliveriesFor, dropReasonOf, isRetryable, retryDelayMs } from './job-retries.js';
import { latestSlotMs } from './schedules.js';
import { ResultAwaitingWriteError } from '../runs/result-awaiting-write-error.js';
import { SlotSupersededError } from '../runs/slot-superseded-error.js';
import type {
  ConsumeOptions,
  DeliveredRunJob,
  HandedOverResult,
  RunConsumer,
  RunJobData,
  RunQueue,
  RunSchedule,
} from '../runs/run-queue.js';

/** A one-shot timer that has been started, and how to cancel it. */
export interface StartedTimer {
  cancel(): void;
}

/** Starts a one-shot timer; tests inject one that fires early, as Node's timers sometimes do by a millisecond. */
export type StartTimer = (callback: () => void, ms: number) => StartedTimer;

const nodeTimer: StartTimer = (callback, ms) => {
  const handle = setTimeout(callback, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

interface Timer {
  schedule: RunSchedule;
  handle: StartedTimer;
  /** The latest slot this queue has delivered for the schedule: no slot at or before it is delivered again. */
  lastSlot: number | undefined;
}

/** The longest delay setTimeout takes (about 24.8 days); monitors may run as rarely as every 30 days. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface InProcessRunQueueOptions {
  /** Where a handler's failure is written: nothing else would ever see it, as no job is kept to fail. */
  log: Logger;
  clock?: { now(): Date };
  /** RUN_RECORD_RETRY_SECONDS: how long a job whose handler finds a dependency away is delivered again. */
  retrySeconds?: number;
  startTimer?: StartTimer;
}

/**
 * The RunQueue contract in one process, for `meerkat dev` without Redis: schedules fire on timers at the same
 * offset-aligned slots BullMQ uses, and jobs go to the consumer of their location with bounded concurrency.
 * Nothing survives a restart; the schedule reconciler recreates the schedules at start.
 */
export function createInProcessRunQueue({
  log,
  clock = { now: () => new Date() },
  retrySeconds = 600,
  startTimer = nodeTimer,
}: InProcessRunQueueOptions): RunQueue {
  const deliveries = deliveriesFor(retrySeconds);
  const timers = new Map<string, Timer>();
  const handlers = new Map<string, { handler: (job: DeliveredRunJob) => Promise<void> } & ConsumeOptions>();
  const retries = new Set<NodeJS.Timeout>();
  const backlog = new Map<string, DeliveredRunJob[]>();
  const active = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  const pump = (location: string) => {
    const consumer = handlers.get(location);
    const waiting = backlog.get(location) ?? [];
    while (
      consumer !== undefined &&
      waiting.length > 0 &&
      (active.get(location) ?? 0) < consumer.concurrency
    ) {
      const job = waiting.shift() as DeliveredRunJob;
      active.set(location, (active.get(location) ?? 0) + 1);
      const done = consumer
        .handler(job)
        .catch((error: unknown) => {
          // Checked, not written: only the write is tried again, never the check.
          if (error instanceof ResultAwaitingWriteError && consumer.writeResults !== undefined)
            return writeLater(location, job, error.handedOver, 1);
          if (error instanceof SlotSupersededError) return shed(consumer, [job]);
          const { organizationId, monitorId, runId } = job.data;
          const ids = { organizationId, monitorId, location, runId, slot: job.slot, attempt: job.delivery };
          if (isRetryable(error) && job.delivery < deliveries) {
            log.warn({ ...ids, reason: shortReason(error) }, 'run job will be retried');
            const retry = setTimeout(() => {
              retries.delete(retry);
              deliver(location, { ...job, delivery: job.delivery + 1 });
            }, retryDelayMs(job.delivery));
            retry.unref();
            retries.add(retry);
            return;
          }
          const reason = dropReasonOf(error);
          log.error({ ...ids, reason, err: error }, 'run job dropped');
          consumer.onDropped?.(job, reason);
        })
        .finally(() => {
          active.set(location, (active.get(location) ?? 1) - 1);
          inFlight.delete(done);
          pump(location);
        });
      inFlight.add(done);
    }
  };

  /** Writes results handed over by a handler, again after a backoff while a dependency is away, then drops them. */
  const writeLater = (location: string, job: DeliveredRunJob, result: HandedOverResult, attempt: number) => {
    const consumer = handlers.get(location);
    const retry = setTimeout(() => {
      retries.delete(retry);
      const written = consumer?.writeResults?.([result]) ?? Promise.resolve();
      const done = written
        .catch((error: unknown) => {
          const ids = { ...job.data, location, slot: job.slot, attempt };
          if (isRetryable(error) && attempt < deliveries) {
            log.warn({ ...ids, reason: shortReason(error) }, 'run job will be retried');
            writeLater(location, job, result, attempt + 1);
            return;
          }
          const reason = dropReasonOf(error);
          log.error({ ...ids, reason, err: error }, 'run job dropped');
          consumer?.onDropped?.(job, reason);
        })
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    }, retryDelayMs(attempt));
    retry.unref();
    retries.add(retry);
  };

  /** Slots an overloaded consumer will not check, counted as gaps (docs/adr/0040-overload-is-shed.md). */
  const shed = (consumer: ConsumeOptions, jobs: readonly DeliveredRunJob[]) =>
    consumer.onSkipped?.(
      jobs.map((job) => ({ data: job.data, slotMs: Number(job.slot) })),
      'shed',
    );
  const heldIn = (location: string) => (backlog.get(location)?.length ?? 0) + (active.get(location) ?? 0);

  const deliver = (location: string, job: DeliveredRunJob) => {
    const waiting = [...(backlog.get(location) ?? []), job];
    // At its bound a consumer sheds its oldest waiting slot, so it keeps the newest of each schedule.
    const consumer = handlers.get(location);
    if (consumer !== undefined && heldIn(location) >= (consumer.maxHeldSlots ?? 2 * consumer.concurrency)) {
      const oldest = waiting.findIndex(
        (waiter) => waiter.slot !== undefined && waiter.data.runId === undefined,
      );
      if (oldest >= 0) shed(consumer, waiting.splice(oldest, 1));
    }
    backlog.set(location, waiting);
    pump(location);
  };

  const deliverSlot = (schedule: RunSchedule, slotMs: number) =>
    deliver(schedule.location, {
      id: `repeat:${schedule.id}:${slotMs}`,
      data: schedule.data,
      slot: String(slotMs),
      dueAt: new Date(slotMs),
      delivery: 1,
      everyMs: schedule.everyMs,
    });

  // The next slot comes after the last one delivered, not after the clock: a timer that fires a millisecond
  // early reads a clock still before its slot, and a next slot taken from the clock alone is that same slot,
  // delivered again a millisecond later (8.6% of checks sent twice at 2,000 monitors, issue #32).
  const arm = (schedule: RunSchedule, lastSlot: number | undefined) => {
    const now = clock.now().getTime();
    const next = latestSlotMs(schedule, Math.max(now, lastSlot ?? now)) + schedule.everyMs;
    const wait = next - now;
    const entry: Timer = { schedule, lastSlot, handle: { cancel: () => undefined } };
    entry.handle = startTimer(
      () => {
        if (timers.get(schedule.id) !== entry) return;
        // Node fires a longer timeout after 1 ms: a slot further away than that is reached in steps.
        if (wait > MAX_TIMEOUT_MS) return arm(schedule, entry.lastSlot);
        // enqueueSlot may have given this slot already.
        if (entry.lastSlot === undefined || next > entry.lastSlot) deliverSlot(schedule, next);
        arm(schedule, Math.max(next, entry.lastSlot ?? next));
      },
      Math.max(0, Math.min(wait, MAX_TIMEOUT_MS)),
    );
    timers.set(schedule.id, entry);
  };

  return {
    enqueue(data: RunJobData & { runId: string }) {
      deliver(data.location, {
        id: data.runId ?? randomUUID(),
        data,
        slot: undefined,
        dueAt: clock.now(),
        delivery: 1,
      });
      return Promise.resolve();
    },
    // Its schedules are never lost (below), so no restore asks for a first slot of its own.
    upsertSchedule(schedule) {
      const existing = timers.get(schedule.id);
      const same =
        existing &&
        existing.schedule.everyMs === schedule.everyMs &&
        existing.schedule.offsetMs === schedule.offsetMs;
      if (!same) {
        existing?.handle.cancel();
        arm(schedule, existing?.lastSlot);
      }
      return Promise.resolve();
    },
    enqueueSlot(schedule, slotMs) {
      // A slot the timer has delivered already is not delivered twice; one given here is not given by it.
      const entry = timers.get(schedule.id);
      if (entry?.lastSlot !== undefined && slotMs <= entry.lastSlot) return Promise.resolve();
      if (entry !== undefined) entry.lastSlot = slotMs;
      deliverSlot(schedule, slotMs);
      return Promise.resolve();
    },
    slotsInFlight() {
      return Promise.resolve({ slots: new Set<string>(), aheadMs: 0 });
    },
    removeSchedule(_location, scheduleId) {
      timers.get(scheduleId)?.handle.cancel();
      timers.delete(scheduleId);
      return Promise.resolve();
    },
    listScheduleIds(location) {
      return Promise.resolve(
        [...timers.values()].filter((t) => t.schedule.location === location).map((t) => t.schedule.id),
      );
    },
    listSchedules(location) {
      return Promise.resolve(
        [...timers.values()]
          .filter((t) => t.schedule.location === location)
          .map(({ schedule: { id, everyMs, offsetMs, data } }) => ({
            id,
            everyMs,
            offsetMs,
            version: data.version,
            current: true,
          })),
      );
    },
    // Schedules live as long as this process, as does the queue: they are never lost on their own.
    missingSchedules() {
      return Promise.resolve('');
    },
    markSchedulesPresent() {
      return Promise.resolve();
    },
    recountSchedules() {
      return Promise.resolve();
    },
    consume(locations, handler, options): RunConsumer {
      for (const location of locations) {
        handlers.set(location, { handler, ...options });
        pump(location);
      }
      return {
        heldSlots: () => locations.reduce((sum, location) => sum + heldIn(location), 0),
        async close() {
          for (const location of locations) handlers.delete(location);
          await Promise.all([...inFlight]);
        },
      };
    },
    async close() {
      for (const { handle } of timers.values()) handle.cancel();
      timers.clear();
      for (const retry of retries) clearTimeout(retry);
      retries.clear();
      handlers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
