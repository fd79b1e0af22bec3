import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { findMonitorsByKeys, listAllMonitors, monitorRowToMonitor } from '../monitors/monitor.repository.js';
import { deleteScheduleChanges, lockScheduleChanges } from './schedule-outbox.repository.js';
import type { RunQueue, RunSchedule } from '../runs/run-queue.js';
import type { ListedSchedule, ScheduleStore } from '../runs/schedule-store.js';
import { desiredSchedules, latestSlotMs, scheduleId } from './schedules.js';

const OUTBOX_BATCH = 500;

/**
 * Applies pending outbox rows, oldest first. Rows are locked with SKIP LOCKED, so two schedulers never apply the
 * same row, and deleted only after their schedules were written: a crash leaves them to be applied again.
 */
export async function drainScheduleOutbox(db: Db, schedules: ScheduleStore): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const rows = await lockScheduleChanges(tx, OUTBOX_BATCH);
    // Every row's monitor in one statement, not one each (docs/adr/0085-hub-cost-of-a-monitor-sync.md).
    const monitors = new Map(
      (
        await findMonitorsByKeys(
          tx,
          rows.map((row) => ({ organizationId: row.organization_id, id: row.monitor_id })),
        )
      ).map((monitor) => [`${monitor.organization_id}/${monitor.id}`, monitor]),
    );
    for (const row of rows) {
      // A deleted monitor's row names every location it had; a changed one names those it left.
      for (const location of row.removed_locations) {
        await schedules.removeSchedule(location, scheduleId(row.organization_id, row.monitor_id, location));
      }
      const monitor = monitors.get(`${row.organization_id}/${row.monitor_id}`);
      if (monitor === undefined) continue;
      for (const schedule of desiredSchedules(row.organization_id, monitorRowToMonitor(monitor))) {
        await schedules.upsertSchedule(schedule);
      }
    }
    await deleteScheduleChanges(
      tx,
      rows.map((r) => r.id),
    );
    return rows.length;
  });
}

/** The schedules, and the run queue a restore after a loss queues the swallowed slots in. */
export interface Scheduling {
  schedules: ScheduleStore;
  queue: Pick<RunQueue, 'slotsInFlight' | 'enqueueSlot'>;
}

/** The schedules were lost at `at`; `accounted` tells which slots have a run or a gap (the slot ledger's). */
export interface LostSchedules {
  at: Date;
  accounted: (
    slots: ReadonlyArray<{ organizationId: string; monitorId: string; location: string; slotMs: number }>,
  ) => Promise<boolean[]>;
}

/**
 * Writes schedules that Redis lost, with the jobs of the slots the loss may have swallowed: the latest slot at
 * `atMs` (so the monitor runs at once instead of up to a whole interval later) and any due before the restored
 * schedule's first slot, which starts past every slot a tick may have queued before the loss. A slot still in a
 * job, or with a run or gap recorded, is not queued again: a loss never gets a slot checked twice. Resolves with
 * the slots queued.
 */
async function restoreLostSchedules(
  { schedules, queue }: Scheduling,
  lost: readonly RunSchedule[],
  { at, accounted }: LostSchedules,
): Promise<number> {
  const atMs = at.getTime();
  const candidates: Array<{ schedule: RunSchedule; slotMs: number }> = [];
  for (const location of new Set(lost.map((s) => s.location))) {
    const inFlight = await queue.slotsInFlight(location);
    const firstSlotAfterMs = atMs + inFlight.aheadMs;
    for (const schedule of lost.filter((s) => s.location === location)) {
      await schedules.upsertSchedule(schedule, { firstSlotAfterMs });
      const until = latestSlotMs(schedule, firstSlotAfterMs);
      for (let slotMs = latestSlotMs(schedule, atMs); slotMs <= until; slotMs += schedule.everyMs)
        if (!inFlight.slots.has(`${schedule.id}@${slotMs}`)) candidates.push({ schedule, slotMs });
    }
  }
  const recorded = await accounted(
    candidates.map(({ schedule: { data, location }, slotMs }) => ({ ...data, location, slotMs })),
  );
  const queued = candidates.filter((_, index) => !recorded[index]);
  for (const { schedule, slotMs } of queued) await queue.enqueueSlot(schedule, slotMs);
  return queued.length;
}

/**
 * Makes the schedules of `locations` exactly the desired ones of every monitor: upserts only what is missing or
 * changed (timing read back from the store) and removes schedulers nobody wants. Run at start and periodically;
 * heals anything the outbox missed. With `lost` (the schedules were lost), each schedule that was missing
 * is restored with the slots the loss swallowed (restoreLostSchedules).
 */
export async function reconcileAllSchedules(
  db: Db,
  scheduling: Scheduling,
  locations: readonly string[],
  log: Logger,
  options: { lost?: LostSchedules } = {},
): Promise<void> {
  const existing = new Map<string, ListedSchedule & Pick<RunSchedule, 'location'>>();
  for (const location of locations)
    for (const schedule of await scheduling.schedules.listSchedules(location))
      existing.set(schedule.id, { ...schedule, location });
  const wanted = new Set<string>();
  let upserted = 0;
  const lost: RunSchedule[] = [];
  for (let offset = 0; ; offset += 1000) {
    const rows = await listAllMonitors(db, { limit: 1000, offset });
    for (const row of rows) {
      for (const schedule of desiredSchedules(row.organization_id, monitorRowToMonitor(row))) {
        if (!locations.includes(schedule.location)) continue;
        wanted.add(schedule.id);
        const current = existing.get(schedule.id);
        if (
          current?.current &&
          current.everyMs === schedule.everyMs &&
          current.offsetMs === schedule.offsetMs &&
          current.version === schedule.data.version
        )
          continue;
        upserted += 1;
        if ((current === undefined || current.lost) && options.lost !== undefined) lost.push(schedule);
        else await scheduling.schedules.upsertSchedule(schedule);
      }
    }
    if (rows.length < 1000) break;
  }
  const backfilled =
    options.lost === undefined ? 0 : await restoreLostSchedules(scheduling, lost, options.lost);
  // Only schedulers listed before the scan: one the outbox adds meanwhile is not taken for an orphan.
  let removed = 0;
  for (const [id, { location }] of existing) {
    if (wanted.has(id)) continue;
    await scheduling.schedules.removeSchedule(location, id);
    removed += 1;
  }
  log.info({ upserted, removed, backfilled }, 'schedules reconciled');
}
