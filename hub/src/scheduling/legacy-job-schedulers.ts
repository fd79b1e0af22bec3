import type { ListedSchedule } from '../runs/schedule-store.js';
import type { RunJobData } from '../runs/run-queue.js';
import type { RedisProducer } from './redis-producer.js';

/**
 * BullMQ job schedulers, written by the releases before batch jobs (docs/adr/0023-batched-run-jobs.md) in the
 * queue `<location>`. A store of this release lists them as not current, so a reconcile writes the schedule to
 * its own keys too; a consumer of this release then retires them. Nothing else in Meerkat knows of them.
 * This file and its three calls go in the release after 0.2.0, once no installation upgrades from before the
 * batch jobs (TODO(#36)).
 */
export function legacyJobSchedulers(producer: RedisProducer) {
  const queueOf = (location: string) => producer.queue<RunJobData>(location);
  const list = async (location: string): Promise<ListedSchedule[]> => {
    const schedulers = await producer.bounded(() => queueOf(location).getJobSchedulers(0, -1));
    return schedulers.map((s) => ({
      id: s.id ?? s.key,
      everyMs: s.every ?? 0,
      offsetMs: s.offset ?? 0,
      version: s.template?.data?.version,
      current: false,
    }));
  };
  return {
    list,

    async remove(location: string, id: string): Promise<void> {
      await producer.bounded(() => queueOf(location).removeJobScheduler(id));
    },

    /**
     * Removes the job schedulers whose schedule the store has (`has`). Done by a consumer, which ticks the store,
     * never by the scheduler: a scheduler upgraded before the workers leaves the old schedulers to the old
     * workers, so no slot waits for a worker able to run it.
     */
    async retire(location: string, has: (id: string) => Promise<boolean>): Promise<void> {
      for (const { id } of await list(location))
        if (await has(id)) await producer.bounded(() => queueOf(location).removeJobScheduler(id));
    },
  };
}
