import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { Registry } from 'prom-client';
import type { Components } from './components.js';
import { systemClock } from '../system/clock.js';
import { startPeriodic } from '../system/periodic.js';
import { startSlotAuditor } from '../ledger/slot-auditor.js';
import { startRunRetention } from '../scheduling/run-retention.js';
import { startRunDetailsCompaction } from '../scheduling/run-details-compaction.js';
import { startRunFold } from '../scheduling/run-fold.js';
import { accountedSlots } from '../ledger/slot-gap.repository.js';
import { foldGapsIntoRollups } from '../metrics/gap-markers.repository.js';
import { sumHoursFromMinutes } from '../metrics/rollup-fold.repository.js';
import {
  drainScheduleOutbox,
  reconcileAllSchedules,
  type LostSchedules,
} from '../scheduling/schedule-reconciler.js';

const OUTBOX_POLL_MS = 1000;
const FULL_RECONCILE_MS = 10 * 60 * 1000;
const SLOT_AUDIT_MS = 10_000;
const GAP_FOLD_MS = 5_000;
/** Gaps folded into the rollups per transaction. */
const GAP_FOLD_BATCH = 1_000;
/** Hours summed from minutes per transaction (docs/adr/0062-hour-and-day-rollups-from-minutes.md). */
const HOUR_SUM_BATCH = 1;
/** An hour is summed this long after it ends, so the results of its last minutes land first. */
const HOUR_SUM_GRACE_MS = 5 * 60_000;

/**
 * Keeps one schedule per (monitor, location) in Redis (docs/adr/0023-batched-run-jobs.md; the workers turn
 * them into batch jobs): a full reconcile at start and every 10 minutes,
 * and the schedule outbox applied every second in between. Each second it also checks the marker the last full
 * reconcile left in Redis, with each location's schedule count: a Redis that restarted empty, failed over to a
 * replica without the schedules, or lost any schedule key (eviction, FLUSHDB) no longer matches it, and the
 * schedules are written again at once rather than at the next 10-minute reconcile. Also deletes
 * runs past RUN_RETENTION_DAYS, compacts passing runs' details (docs/adr/0050-run-details-compaction.md), folds
 * old compacted ones (docs/adr/0061-fold-old-passing-runs.md), and
 * audits the slot ledger every 10 s: a settled slot with neither a run nor a gap becomes a gap `lost`
 * (docs/adr/0025-slot-ledger.md). Every 5 s the gaps recorded since become "no data" markers in the rollups
 * (docs/adr/0048-uptime-counts-known-time.md).
 */
export async function startScheduler(options: {
  settings: Readonly<Settings>;
  log: Logger;
  components: Components;
  registry?: Registry | undefined;
}): Promise<{ close(): Promise<void> }> {
  const { settings, log, components } = options;
  // PGlite is one database in one process: no other scheduler can open it, and there is no lease to take.
  if (settings.DATABASE_URL === undefined || components.database.embedded)
    return startSchedulerWork(settings, log, components, () => Promise.resolve(true));
  // The lease (docs/adr/0069-scheduler-lease.md): a stand-by returns at once and schedules when it takes it. Its
  // module loads node-postgres, which `meerkat dev` never needs (docs/adr/0074-dev-memory.md).
  const { holdSchedulerLease } = await import('../scheduling/scheduler-lease.js');
  return holdSchedulerLease({
    databaseUrl: settings.DATABASE_URL,
    log,
    registry: options.registry,
    start: (lease) => startSchedulerWork(settings, log, components, lease.stillLeader),
  });
}

/**
 * The scheduler's work, in the process that holds the lease. `stillLeader` asks the server whether the lease still
 * holds: the schedule sync, the one pass that queues slots (a restore after a loss), asks it before each pass.
 */
async function startSchedulerWork(
  settings: Readonly<Settings>,
  log: Logger,
  components: Components,
  stillLeader: () => Promise<boolean>,
): Promise<{ close(): Promise<void> }> {
  const locations = settings.LOCATIONS.map((l) => l.name);
  const { schedules } = components;
  const scheduling = { schedules, queue: components.runQueue };
  const reconcileAll = async (options: { lost?: LostSchedules } = {}) => {
    await reconcileAllSchedules(components.db, scheduling, locations, log, options);
    await schedules.markSchedulesPresent(locations);
  };
  if (await stillLeader()) {
    await reconcileAll();
    await drainScheduleOutbox(components.db, schedules);
  }

  let lastFull = Date.now();
  const sync = startPeriodic(
    async () => {
      if (!(await stillLeader())) return;
      const due = Date.now() - lastFull >= FULL_RECONCILE_MS;
      const missing = due ? '' : await schedules.missingSchedules(locations);
      if (missing !== '')
        log.warn(
          { missing },
          'the schedules are gone from Redis (restarted empty, failed over, or keys lost): writing them again',
        );
      if (due || missing !== '') {
        lastFull = Date.now();
        // Lost schedules also get their latest slot at once: the one the gap swallowed.
        const accounted: LostSchedules['accounted'] = (slots) => accountedSlots(components.db, slots);
        await reconcileAll(missing !== '' ? { lost: { at: new Date(), accounted } } : {});
      }
      let drained = 0;
      for (;;) {
        const rows = await drainScheduleOutbox(components.db, schedules);
        if (rows === 0) break;
        drained += rows;
      }
      // The counts the next check compares with: schedules added or removed by the outbox are not a loss.
      if (drained > 0) await schedules.recountSchedules(locations);
    },
    OUTBOX_POLL_MS,
    (error) => log.error({ err: error }, 'schedule sync failed'),
  );
  // Dropping partitions and deleting expired rows may rightly take longer than the API's statement bound.
  const retention = startRunRetention({
    db: components.maintenanceDb,
    clock: systemClock,
    log,
    retentionDays: settings.RUN_RETENTION_DAYS,
    minuteRollupRetentionDays: settings.MINUTE_ROLLUP_RETENTION_DAYS,
    intervalMs: settings.REAPER_INTERVAL_SECONDS * 1000,
  });
  const compaction = startRunDetailsCompaction({
    db: components.maintenanceDb,
    clock: systemClock,
    log,
    keepLatest: settings.RUN_DETAILS_KEEP_LATEST,
    keepMinutes: settings.RUN_DETAILS_KEEP_MINUTES,
    foldAfterMinutes: settings.RUN_FOLD_AFTER_MINUTES,
    intervalMs: settings.REAPER_INTERVAL_SECONDS * 1000,
  });
  const fold = startRunFold({
    db: components.maintenanceDb,
    clock: systemClock,
    log,
    foldAfterMinutes: settings.RUN_FOLD_AFTER_MINUTES,
    details: { keepLatest: settings.RUN_DETAILS_KEEP_LATEST, keepMinutes: settings.RUN_DETAILS_KEEP_MINUTES },
    intervalMs: settings.REAPER_INTERVAL_SECONDS * 1000,
  });
  const audit = startSlotAuditor({
    db: components.db,
    log,
    clock: systemClock,
    settings,
    intervalMs: SLOT_AUDIT_MS,
  });
  const gapFold = startPeriodic(
    async () => {
      while ((await foldGapsIntoRollups(components.db, GAP_FOLD_BATCH)) === GAP_FOLD_BATCH);
      const pass = { graceMs: HOUR_SUM_GRACE_MS, maxHours: HOUR_SUM_BATCH };
      while (
        (await sumHoursFromMinutes(components.db, { ...pass, now: systemClock.now() })) === HOUR_SUM_BATCH
      );
    },
    GAP_FOLD_MS,
    (error) => log.error({ err: error }, 'folding gaps or summing hours into the rollups failed'),
  );
  log.info({ locations }, 'scheduler running');
  return {
    async close() {
      await sync.stop();
      await retention.stop();
      await compaction?.stop();
      await fold?.stop();
      await audit.stop();
      await gapFold.stop();
    },
  };
}
