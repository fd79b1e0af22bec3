import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { Components } from '../server/components.js';
import { startPeriodic } from '../server/periodic.js';
import { startProcessMaintenance } from '../worker/maintenance.js';
import { drainScheduleOutbox, reconcileAllSchedules } from './schedule-reconciler.js';

const OUTBOX_POLL_MS = 1000;
const FULL_RECONCILE_MS = 10 * 60 * 1000;

/**
 * Keeps one BullMQ job scheduler per (monitor, location): a full reconcile at start and every 10 minutes,
 * and the schedule outbox applied every second in between. Also deletes runs past RUN_RETENTION_DAYS.
 */
export async function startScheduler(options: {
  settings: Readonly<Settings>;
  log: Logger;
  components: Components;
}): Promise<{ close(): Promise<void> }> {
  const { settings, log, components } = options;
  const locations = settings.LOCATIONS.map((l) => l.name);
  await reconcileAllSchedules(components.db, components.runQueue, locations, log);
  await drainScheduleOutbox(components.db, components.runQueue);

  let lastFull = Date.now();
  const sync = startPeriodic(
    async () => {
      if (Date.now() - lastFull >= FULL_RECONCILE_MS) {
        lastFull = Date.now();
        await reconcileAllSchedules(components.db, components.runQueue, locations, log);
      }
      while ((await drainScheduleOutbox(components.db, components.runQueue)) > 0);
    },
    OUTBOX_POLL_MS,
    (error) => log.error({ err: error }, 'schedule sync failed'),
  );
  const maintenance = startProcessMaintenance(
    { settings, db: components.db, log },
    { retentionDays: settings.RUN_RETENTION_DAYS },
  );
  log.info({ locations }, 'scheduler running');
  return {
    async close() {
      await sync.stop();
      await maintenance.stop();
    },
  };
}
