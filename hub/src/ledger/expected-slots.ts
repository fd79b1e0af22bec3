import { frequencyToSeconds } from '../contract/monitor-definition.js';
import { monitorLocations } from '../contract/stored-monitor.js';
import { latestSlotMs, scheduleId, scheduleOffsetMs } from '../scheduling/schedules.js';
import type { AuditedMonitor } from './slot-audit.repository.js';

/**
 * How long after a monitor is created or changed its schedule may take to reach the queue (the scheduler applies
 * the outbox every second): a slot due before that was never promised. Its first slot is the first after then.
 */
export const SCHEDULE_PROPAGATION_MS = 5_000;

export interface ExpectedSlot {
  organizationId: string;
  monitorId: string;
  location: string;
  slotMs: number;
}

/** Offsets are a hash of the schedule id: remembered, as the audit asks for every schedule every pass. */
const offsets = new Map<string, number>();
const OFFSETS_KEPT = 200_000;

function offsetOf(id: string, everyMs: number): number {
  const key = `${everyMs}|${id}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    if (offsets.size >= OFFSETS_KEPT) offsets.clear();
    offset = scheduleOffsetMs(id, everyMs);
    offsets.set(key, offset);
  }
  return offset;
}

/**
 * The slots of `monitor` due in the window (fromMs, toMs] at the scheduled `locations`, on its current grid
 * (`desiredSchedules`: k × everyMs + offsetMs). Only slots after its schedule existed: after its creation, and
 * after its last change, which may have moved the grid (a new frequency). A monitor changed after the window
 * has none: the grid it had during the window is no longer known (docs/adr/0025-slot-ledger.md).
 */
export function expectedSlots(
  monitor: AuditedMonitor,
  locations: ReadonlySet<string>,
  fromMs: number,
  toMs: number,
): ExpectedSlot[] {
  if (monitor.frequency === null) return [];
  const changedAtMs = Math.max(monitor.created_at.getTime(), monitor.updated_at.getTime());
  if (changedAtMs >= toMs) return [];
  const startMs = Math.max(fromMs, changedAtMs + SCHEDULE_PROPAGATION_MS);
  const everyMs = Math.round(frequencyToSeconds(monitor.frequency) * 1000);
  const slots: ExpectedSlot[] = [];
  for (const location of monitorLocations({ locations: monitor.locations ?? undefined })) {
    if (!locations.has(location)) continue;
    const schedule = {
      everyMs,
      offsetMs: offsetOf(scheduleId(monitor.organization_id, monitor.id, location), everyMs),
    };
    for (let slotMs = latestSlotMs(schedule, startMs) + everyMs; slotMs <= toMs; slotMs += everyMs)
      slots.push({ organizationId: monitor.organization_id, monitorId: monitor.id, location, slotMs });
  }
  return slots;
}
