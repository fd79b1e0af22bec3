import type { Db } from '../db/database.js';
import { findMonitor, type MonitorRow } from '../monitors/monitor.repository.js';
import { isDatabaseUnavailable } from '../system/dependency-errors.js';

/** Definitions kept at most for outages: a worker serves at most this many monitors from memory. */
const MAX_REMEMBERED = 50_000;

/**
 * Reads a monitor's definition for a run, and remembers the last one read. A scheduled job names the version
 * its schedule was written for: when that is the version remembered, the run uses it without a read (a change
 * reaches the schedule through the outbox within about a second, and its jobs then name the new version). While
 * the database is away the checks of known monitors keep running on the definition they last had (their
 * results are parked and written when it returns), so an outage costs no slot. A monitor never read before
 * cannot run until it returns.
 */
export function createMonitorReader(db: Db) {
  const remembered = new Map<string, MonitorRow>();
  return {
    async read(organizationId: string, monitorId: string, version?: string): Promise<MonitorRow | undefined> {
      const key = `${organizationId}/${monitorId}`;
      const known = remembered.get(key);
      if (version !== undefined && known?.updated_at.toISOString() === version) return known;
      try {
        const row = await findMonitor(db, organizationId, monitorId);
        remembered.delete(key);
        if (row !== undefined) remembered.set(key, row);
        if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
        return row;
      } catch (error) {
        if (known !== undefined && isDatabaseUnavailable(error)) return known;
        throw error;
      }
    },
  };
}
