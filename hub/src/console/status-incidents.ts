import type { PublicIncident } from '../contract/console.js';
import { HOUR_MS } from '../metrics/time-buckets.js';

/** Incidents a status page lists at most, newest first: a flapping monitor must not make the page a log. */
export const MAX_STATUS_INCIDENTS = 50;

interface FailingHour {
  monitorId: string;
  hour: Date;
  failures: number;
  endedFailing: boolean;
}

/**
 * A status page's incidents from the hours with failures (ordered by monitor, then hour): consecutive hours of one
 * monitor are one incident, from the start of its first hour to the end of its last, to the hour. The latest
 * incident of a monitor that is failing now, and whose last hour ended on a failure, is ongoing (no end).
 */
export function incidentsOf(
  hours: readonly FailingHour[],
  monitors: { nameOf: (monitorId: string) => string | undefined; failingNow: (monitorId: string) => boolean },
): PublicIncident[] {
  const incidents: Array<PublicIncident & { monitorId: string; last: FailingHour }> = [];
  for (const hour of hours) {
    const name = monitors.nameOf(hour.monitorId);
    if (name === undefined) continue;
    const open = incidents.at(-1);
    if (open?.monitorId === hour.monitorId && hour.hour.getTime() - open.last.hour.getTime() === HOUR_MS) {
      open.failedRuns += hour.failures;
      open.last = hour;
      continue;
    }
    incidents.push({
      monitorId: hour.monitorId,
      monitor: name,
      start: hour.hour.toISOString(),
      end: null,
      failedRuns: hour.failures,
      last: hour,
    });
  }
  return incidents
    .map(({ monitorId, last, ...incident }, i) => {
      const latestOfMonitor = incidents[i + 1]?.monitorId !== monitorId;
      const ongoing = latestOfMonitor && last.endedFailing && monitors.failingNow(monitorId);
      return { ...incident, end: ongoing ? null : new Date(last.hour.getTime() + HOUR_MS).toISOString() };
    })
    .sort((a, b) => b.start.localeCompare(a.start) || a.monitor.localeCompare(b.monitor))
    .slice(0, MAX_STATUS_INCIDENTS);
}
