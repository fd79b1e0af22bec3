import { frequencyToSeconds } from '../contract/monitor-definition.js';
import type { Executor } from '../db/database.js';
import { listMonitorsWithLatestRun } from './latest-runs.repository.js';

/** A monitor is overdue when its latest run is older than this many times its frequency. */
const OVERDUE_FREQUENCIES = 2;

export interface MonitorsOfOrganization {
  organizationId: string;
  /** Every monitor of the organization, and those of them overdue. */
  monitors: number;
  overdue: Set<string>;
}

/**
 * Per organization, the monitors that have had no finished run for OVERDUE_FREQUENCIES times their frequency
 * (counted from their creation when they never ran). It is what a silent gap looks like (the schedules lost
 * with an emptied Redis, workers that are all down) while every other figure still reads healthy.
 */
export async function findOverdueMonitors(
  db: Executor,
  now: Date,
  organizationId?: string,
): Promise<MonitorsOfOrganization[]> {
  const organizations = new Map<string, MonitorsOfOrganization>();
  for (const row of await listMonitorsWithLatestRun(db, organizationId)) {
    let organization = organizations.get(row.organizationId);
    if (organization === undefined) {
      organization = { organizationId: row.organizationId, monitors: 0, overdue: new Set() };
      organizations.set(row.organizationId, organization);
    }
    organization.monitors += 1;
    const since = new Date(row.lastRunAt ?? row.createdAt);
    const allowedMs = OVERDUE_FREQUENCIES * frequencyToSeconds(row.frequency) * 1000;
    if (now.getTime() - since.getTime() > allowedMs) organization.overdue.add(row.monitorId);
  }
  return [...organizations.values()];
}
