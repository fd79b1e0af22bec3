import type { Logger } from 'pino';
import type { ListedSchedule, ScheduleStore } from '../runs/schedule-store.js';
import { legacyJobSchedulers } from './legacy-job-schedulers.js';
import { createRedisProducer } from './redis-producer.js';
import { createRedisSchedules } from './redis-schedules.js';

// A hash since the schedule counts joined it; the string marker of earlier releases had another name.
const SCHEDULES_MARKER = 'meerkat:schedules-counted';

export interface BullmqScheduleStoreOptions {
  redisUrl: string;
  /** Redis key prefix, the run queue's (bullmq-run-queue.ts): its consumers tick these schedules. */
  prefix?: string;
  log: Logger;
}

/**
 * The schedules in Redis (redis-schedules.ts), beside the run queues whose consumers make their slots into batch
 * jobs. Every call fails fast with DependencyUnavailableError while Redis is away.
 */
export function createBullmqScheduleStore(options: BullmqScheduleStoreOptions): ScheduleStore {
  const prefix = options.prefix ?? 'runs';
  const producer = createRedisProducer({ redisUrl: options.redisUrl, prefix, log: options.log });
  const { bounded } = producer;
  const schedules = createRedisSchedules(producer.redis, prefix);
  const legacy = legacyJobSchedulers(producer);
  const markerKey = `${prefix}:${SCHEDULES_MARKER}`;

  const listSchedules = async (location: string): Promise<ListedSchedule[]> => {
    const listed = new Map<string, ListedSchedule>();
    for (const s of await bounded(() => schedules.list(location)))
      listed.set(s.id, {
        id: s.id,
        everyMs: s.everyMs,
        offsetMs: s.offsetMs,
        version: s.data.version,
        current: !s.lost,
        ...(s.lost ? { lost: true } : {}),
      });
    // A schedule an earlier release also wrote as a job scheduler is not current until that one is retired.
    for (const old of await legacy.list(location)) {
      const ours = listed.get(old.id);
      listed.set(old.id, {
        id: old.id,
        everyMs: ours?.everyMs ?? old.everyMs,
        offsetMs: ours?.offsetMs ?? old.offsetMs,
        version: ours?.version ?? old.version,
        current: false,
      });
    }
    return [...listed.values()];
  };

  return {
    async upsertSchedule(schedule, upsertOptions = {}) {
      await bounded(() => schedules.upsert(schedule, upsertOptions.firstSlotAfterMs ?? Date.now()));
    },
    async removeSchedule(location, scheduleId) {
      await bounded(() => schedules.remove(location, scheduleId));
      await legacy.remove(location, scheduleId);
    },
    async listScheduleIds(location) {
      return (await listSchedules(location)).map((s) => s.id);
    },
    listSchedules,
    missingSchedules: (locations) => bounded(() => schedules.missing(markerKey, locations)),
    async markSchedulesPresent(locations) {
      await bounded(() => schedules.count(markerKey, locations, true));
    },
    async recountSchedules(locations) {
      await bounded(() => schedules.count(markerKey, locations, false));
    },
    close: () => producer.close(),
  };
}
