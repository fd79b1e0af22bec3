import type { MonitorDependant } from '../monitors/monitor-dependants.js';
import { monitorLocations } from '../contract/stored-monitor.js';
import { recordScheduleChange } from './schedule-outbox.repository.js';

/**
 * Keeps a monitor's schedules following it: each change records, in the monitor's own transaction, that its
 * schedules need applying (and which locations it left); the schedule reconciler does the Redis work.
 */
export const scheduleDependant: MonitorDependant = {
  name: 'schedules',
  async sync(tx, change) {
    const now = new Set(change.kind === 'delete' ? [] : monitorLocations(change.monitor));
    const before =
      change.kind === 'delete'
        ? monitorLocations(change.monitor)
        : change.previous
          ? monitorLocations(change.previous)
          : [];
    await recordScheduleChange(
      tx,
      change.organizationId,
      change.monitor.id,
      before.filter((location) => !now.has(location)),
    );
  },
};
