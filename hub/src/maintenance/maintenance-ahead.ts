import type { Executor } from '../db/database.js';
import { listWindows } from './maintenance-window.repository.js';
import { monitorsWithLocations } from './monitor-labels.repository.js';
import { matchesMonitor } from './run-matchers.js';
import { nextOccurrence, occurrenceAt, type Occurrence } from './window-schedule.js';

/** A window over some of the given monitors, in force now or with an occurrence still to come. */
export interface WindowAhead {
  name: string;
  /** The occurrence in force now, if any. */
  current: Occurrence | undefined;
  /** The next occurrence to start, if any. */
  next: Occurrence | undefined;
  /** The given monitors it matches in at least one of their locations, in the order given. */
  monitorIds: string[];
}

/**
 * The windows of an organization that match any of `monitorIds` (as runs are matched: in one of the monitor's
 * locations) and are in force at `now` or start after it, by name. What a status page shows of maintenance.
 */
export async function windowsAheadOf(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  now: Date,
): Promise<WindowAhead[]> {
  const windows = (await listWindows(db, [organizationId]))
    .map((window) => ({
      window,
      current: occurrenceAt(window.schedule, now),
      next: nextOccurrence(window.schedule, now),
    }))
    .filter((w) => w.current !== undefined || w.next !== undefined);
  if (windows.length === 0) return [];
  const monitors = await monitorsWithLocations(db, organizationId, monitorIds);
  const order = new Map(monitorIds.map((id, i) => [id, i]));
  monitors.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return windows
    .map(({ window, current, next }) => ({
      name: window.name,
      current,
      next,
      monitorIds: monitors
        .filter((monitor) => matchesMonitor(window.matchers, monitor))
        .map((monitor) => monitor.id),
    }))
    .filter((w) => w.monitorIds.length > 0);
}
