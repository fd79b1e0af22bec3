import { createHash } from 'node:crypto';
import { frequencyToSeconds, type Monitor } from '../contract/monitor-definition.js';
import { monitorLocations } from '../contract/stored-monitor.js';
import type { RunSchedule } from '../runs/run-queue.js';

export function scheduleId(organizationId: string, monitorId: string, location: string): string {
  return `${organizationId}/${monitorId}/${location}`;
}

/**
 * A stable offset within the interval, from a hash of the schedule id: monitors with the same frequency start
 * at different moments instead of all at once, and a restart keeps each one where it was.
 */
export function scheduleOffsetMs(id: string, everyMs: number): number {
  const hash = createHash('sha256').update(id).digest().readUInt32BE(0);
  return hash % everyMs;
}

/** The schedules a monitor should have: one per location. */
export function desiredSchedules(organizationId: string, monitor: Monitor): RunSchedule[] {
  const everyMs = Math.round(frequencyToSeconds(monitor.frequency) * 1000);
  return monitorLocations(monitor).map((location) => {
    const id = scheduleId(organizationId, monitor.id, location);
    return {
      id,
      location,
      everyMs,
      offsetMs: scheduleOffsetMs(id, everyMs),
      data: { organizationId, monitorId: monitor.id, location, version: monitor.updatedAt },
    };
  });
}

/** The latest slot of `schedule` at or before `nowMs`: slots fall at `k × everyMs + offsetMs`, as BullMQ's. */
export function latestSlotMs(schedule: Pick<RunSchedule, 'everyMs' | 'offsetMs'>, nowMs: number): number {
  return Math.floor((nowMs - schedule.offsetMs) / schedule.everyMs) * schedule.everyMs + schedule.offsetMs;
}
