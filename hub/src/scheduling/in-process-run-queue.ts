import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { shortReason } from '../system/dependency-errors.js';
import { deliveriesFor, dropReasonOf, isRetryable, retryDelayMs } from './job-retries.js';
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
  SkipReason,
} from '../runs/run-queue.js';

export interface InProcessRunQueueOptions {
  /** Where a handler's failure is written: nothing else would ever see it, as no job is kept to fail. */
  log: Logger;
  clock?: { now(): Date };
  /** RUN_RECORD_RETRY_SECONDS: how long a job whose handler finds a dependency away is delivered again. */
  retrySeconds?: number;
}

/** The in-process queue, with the door its schedule store (in-process-schedule-store.ts) delivers slots by. */
export interface InProcessRunQueue extends RunQueue {
  /** Delivers a slot of `schedule` unless it or a later slot of the schedule was delivered already. */
  deliverSlot(schedule: RunSchedule, slotMs: number): void;
  /** The latest slot of a schedule delivered, by its id. */
  lastSlotOf(scheduleId: string): number | undefined;
  /** Slots of `schedule` that will never be checked: its location's consumer counts each as a gap. */
  skipSlots(schedule: RunSchedule, slotsMs: readonly number[], reason: SkipReason): void;
}

/** The index of the oldest scheduled slot of the organization with the most scheduled slots waiting, or -1. */
function oldestOfLargest(waiting: readonly DeliveredRunJob[]): number {
  const counts = new Map<string, number>();
  const oldest = new Map<string, number>();
  waiting.forEach((job, index) => {
    if (job.slot === undefined || job.data.runId !== undefined) return;
    const { organizationId } = job.data;
    counts.set(organizationId, (counts.get(organizationId) ?? 0) + 1);
    if (!oldest.has(organizationId)) oldest.set(organizationId, index);
  });
  let largest: string | undefined;
  for (const [organizationId, count] of counts)
    if (largest === undefined || count > (counts.get(largest) ?? 0)) largest = organizationId;
  return largest === undefined ? -1 : (oldest.get(largest) ?? -1);
}

/**
 * The RunQueue contract in one process, for `meerkat dev` without Redis: jobs go to the consumer of their
 * location with bounded concurrency; the schedule store's timers deliver their slots here. Nothing survives a
 * restart; the schedule reconciler recreates the schedules at start.
 */
export function createInProcessRunQueue({
  log,
  clock = { now: () => new Date() },
  retrySeconds = 600,
}: InProcessRunQueueOptions): InProcessRunQueue {
  const deliveries = deliveriesFor(retrySeconds);
  // The latest slot delivered per schedule: no slot at or before it is delivered again, by a timer or enqueueSlot.
  const lastSlots = new Map<string, number>();
  const handlers = new Map<string, { handler: (job: DeliveredRunJob) => Promise<void> } & ConsumeOptions>();
  const retries = new Set<NodeJS.Timeout>();
  const backlog = new Map<string, DeliveredRunJob[]>();
  const active = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  const pump = (location: string) => {
    const consumer = handlers.get(location);
    const waiting = backlog.get(location) ?? [];
    // A job goes to the handler once the admission holds it (it may shed slots waiting for a check to make room);
    // one it has no room for waits here until a held one leaves.
    while (
      consumer !== undefined &&
      waiting.length > 0 &&
      // Without lanes here (its backlog sheds by organization), every job may fill the whole limit.
      consumer.admission.tryHold(
        1,
        () => new SlotSupersededError('newer slots took its place in line'),
        'first',
      )
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
          consumer.admission.release(1);
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
  const deliver = (location: string, job: DeliveredRunJob) => {
    const waiting = backlog.get(location) ?? [];
    waiting.push(job);
    backlog.set(location, waiting);
    // Nowhere to hand a job back to: past the admission's bound, waiting too, a consumer sheds the oldest waiting
    // slot of the organization with the most waiting, so it keeps the newest of each schedule and costs the
    // largest organization first (docs/adr/0053-fair-lanes.md).
    const consumer = handlers.get(location);
    if (consumer !== undefined && waiting.length > consumer.admission.limits.heldSlots) {
      const oldest = oldestOfLargest(waiting);
      if (oldest >= 0) shed(consumer, waiting.splice(oldest, 1));
    }
    pump(location);
  };

  const deliverSlot = (schedule: RunSchedule, slotMs: number) => {
    const last = lastSlots.get(schedule.id);
    if (last !== undefined && slotMs <= last) return;
    lastSlots.set(schedule.id, slotMs);
    deliver(schedule.location, {
      id: `repeat:${schedule.id}:${slotMs}`,
      data: schedule.data,
      slot: String(slotMs),
      dueAt: new Date(slotMs),
      delivery: 1,
      everyMs: schedule.everyMs,
    });
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
    deliverSlot,
    lastSlotOf: (scheduleId) => lastSlots.get(scheduleId),
    skipSlots(schedule, slotsMs, reason) {
      if (slotsMs.length === 0) return;
      handlers.get(schedule.location)?.onSkipped?.(
        slotsMs.map((slotMs) => ({ data: schedule.data, slotMs })),
        reason,
      );
    },
    enqueueSlot(schedule, slotMs) {
      deliverSlot(schedule, slotMs);
      return Promise.resolve();
    },
    slotsInFlight() {
      return Promise.resolve({ slots: new Set<string>(), aheadMs: 0 });
    },
    consume(locations, handler, options): RunConsumer {
      for (const location of locations) {
        handlers.set(location, { handler, ...options });
        pump(location);
      }
      return {
        async close() {
          for (const location of locations) handlers.delete(location);
          await Promise.all([...inFlight]);
        },
      };
    },
    async close() {
      for (const retry of retries) clearTimeout(retry);
      retries.clear();
      handlers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
