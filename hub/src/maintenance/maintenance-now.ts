import type { Executor } from '../db/database.js';
import { listWindows } from './maintenance-window.repository.js';
import { monitorsWithLocations } from './monitor-labels.repository.js';
import { matchesMonitor } from './run-matchers.js';
import { occurrenceAt } from './window-schedule.js';

/** The maintenance window a monitor is in now, as the metrics API and Prometheus show it. */
export interface MaintenanceNow {
  windowId: string;
  name: string;
  start: Date;
  end: Date;
  excludeFromFigures: boolean;
}

/**
 * Per monitor: the first window (by name) in force over it now, in any of its locations. One query when the
 * organization has no window (most), two otherwise.
 */
export async function maintenanceNowOf(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  now: Date,
): Promise<Map<string, MaintenanceNow>> {
  const found = new Map<string, MaintenanceNow>();
  const inForce = (await listWindows(db, [organizationId]))
    .map((window) => ({ window, occurrence: occurrenceAt(window.schedule, now) }))
    .filter((w) => w.occurrence !== undefined);
  if (inForce.length === 0) return found;
  for (const monitor of await monitorsWithLocations(db, organizationId, monitorIds)) {
    const over = inForce.find(({ window }) => matchesMonitor(window.matchers, monitor));
    if (over?.occurrence !== undefined)
      found.set(monitor.id, {
        windowId: over.window.id,
        name: over.window.name,
        ...over.occurrence,
        excludeFromFigures: over.window.exclude_from_figures,
      });
  }
  return found;
}
