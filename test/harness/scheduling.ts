// A run queue with its schedule store, as openComponents pairs them (hub/src/server/components.ts): on the test
// Redis under a key prefix of their own, or in process as in `meerkat dev` without Redis.
import type { Logger } from 'pino';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';
import type { ScheduleStore } from '../../hub/src/runs/schedule-store.js';
import { createBullmqRunQueue } from '../../hub/src/scheduling/bullmq-run-queue.js';
import { createBullmqScheduleStore } from '../../hub/src/scheduling/bullmq-schedule-store.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import {
  createInProcessScheduleStore,
  type StartTimer,
} from '../../hub/src/scheduling/in-process-schedule-store.js';
import { createAdmission, type Admission } from '../../hub/src/worker/admission.js';
import { testRedisPrefix, testRedisUrl } from './database.js';

export interface TestScheduling {
  queue: RunQueue;
  schedules: ScheduleStore;
  close: () => Promise<void>;
}

const pair = (queue: RunQueue, schedules: ScheduleStore): TestScheduling => ({
  queue,
  schedules,
  close: async () => {
    await schedules.close();
    await queue.close();
  },
});

export function openBullmqScheduling(
  log: Logger,
  options: { redisUrl?: string; prefix?: string; retrySeconds?: number } = {},
): TestScheduling {
  const redisUrl = options.redisUrl ?? testRedisUrl();
  const prefix = options.prefix ?? testRedisPrefix();
  return pair(
    createBullmqRunQueue({ redisUrl, prefix, log, retrySeconds: options.retrySeconds ?? 10 }),
    createBullmqScheduleStore({ redisUrl, prefix, log }),
  );
}

export function openInProcessScheduling(
  log: Logger,
  options: { retrySeconds?: number; clock?: { now(): Date }; startTimer?: StartTimer } = {},
): TestScheduling {
  const queue = createInProcessRunQueue({
    log,
    retrySeconds: options.retrySeconds ?? 10,
    ...(options.clock && { clock: options.clock }),
  });
  return pair(
    queue,
    createInProcessScheduleStore(queue, {
      ...(options.clock && { clock: options.clock }),
      ...(options.startTimer && { startTimer: options.startTimer }),
    }),
  );
}

/**
 * A consumer's admission as a worker makes it (hub/src/worker/admission.ts): `checks` places, and twice as many
 * slots held unless said. A test handler that wants the check places takes them through `admission.checks`.
 */
export function testAdmission(checks: number, heldSlots = 2 * checks): Admission {
  return createAdmission({ checks, heldSlots });
}
