import type { Db } from '../db/database.js';
import {
  findMonitor,
  listMonitorsChangedAfter,
  type MonitorChangeCursor,
  type MonitorRow,
} from '../monitors/monitor.repository.js';
import { isDatabaseUnavailable } from '../system/dependency-errors.js';

/** Definitions kept at most for outages: a worker serves at most this many monitors from memory. */
const MAX_REMEMBERED = 50_000;
/** Rows a warm-up reads per statement. */
const WARM_PAGE = 1_000;

export type MonitorReader = ReturnType<typeof createMonitorReader>;

/**
 * Reads a monitor's definition for a run, and remembers the last one read. A scheduled job names the version
 * its schedule was written for: when that is the version remembered, the run uses it without a read (a change
 * reaches the schedule through the outbox within about a second, and its jobs then name the new version). While
 * the database is away the checks of known monitors keep running on the definition they last had (their
 * results are parked and written when it returns), so an outage costs no slot.
 *
 * `warm()` reads every monitor changed since its last call, so a worker knows each monitor before the database
 * goes away, not only those whose slots it happened to take: with two workers, half the slots of an outage
 * would otherwise wait for the database (or for the other worker) and be checked late.
 */
export function createMonitorReader(db: Db) {
  const remembered = new Map<string, MonitorRow>();
  let warmedTo: MonitorChangeCursor | undefined;
  const remember = (row: MonitorRow) => {
    const key = `${row.organization_id}/${row.id}`;
    remembered.delete(key);
    remembered.set(key, row);
    if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  };
  return {
    async read(organizationId: string, monitorId: string, version?: string): Promise<MonitorRow | undefined> {
      const key = `${organizationId}/${monitorId}`;
      const known = remembered.get(key);
      if (version !== undefined && known?.updated_at.toISOString() === version) return known;
      try {
        const row = await findMonitor(db, organizationId, monitorId);
        if (row === undefined) remembered.delete(key);
        else remember(row);
        return row;
      } catch (error) {
        if (known !== undefined && isDatabaseUnavailable(error)) return known;
        throw error;
      }
    },

    /** Remembers every monitor changed since the last warm-up (all of them, the first time). */
    async warm(): Promise<void> {
      for (;;) {
        const rows = await listMonitorsChangedAfter(db, warmedTo, WARM_PAGE);
        for (const row of rows) remember(row);
        const last = rows.at(-1);
        if (last !== undefined)
          warmedTo = { updatedAt: last.updated_at, organizationId: last.organization_id, id: last.id };
        if (rows.length < WARM_PAGE) return;
      }
    },
  };
}
