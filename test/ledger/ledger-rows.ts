// Rows for the slot ledger's tests: monitors with a timing, run rows of given slots, and the grid the scheduler
// puts their slots on (scheduling/schedules.ts), computed here independently of the auditor.
import type { Db } from '../../hub/src/db/database.js';
import { latestSlotMs, scheduleId, scheduleOffsetMs } from '../../hub/src/scheduling/schedules.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

export const ORG = 'acme';

export interface LedgerMonitor {
  id: string;
  createdAt: Date;
  updatedAt?: Date;
  everyMinutes?: number;
  locations?: string[];
}

export async function insertLedgerMonitor(db: Db, monitor: LedgerMonitor): Promise<void> {
  const definition = {
    frequency: { every: monitor.everyMinutes ?? 1, unit: 'MINUTE' },
    ...(monitor.locations ? { locations: monitor.locations } : {}),
  };
  await db
    .insertInto('monitors')
    .values({
      organization_id: ORG,
      id: monitor.id,
      project: 'shop',
      environment: 'production',
      name: monitor.id,
      schema_version: '1.0',
      definition: jsonColumn(definition),
      created_at: monitor.createdAt,
      updated_at: monitor.updatedAt ?? monitor.createdAt,
    })
    .execute();
}

/** The slots of a monitor's schedule at `location` due in (fromMs, toMs]. */
export function gridSlots(
  monitorId: string,
  location: string,
  everyMs: number,
  fromMs: number,
  toMs: number,
) {
  const offsetMs = scheduleOffsetMs(scheduleId(ORG, monitorId, location), everyMs);
  const slots: number[] = [];
  for (let slot = latestSlotMs({ everyMs, offsetMs }, fromMs) + everyMs; slot <= toMs; slot += everyMs)
    slots.push(slot);
  return slots;
}

/** A completed scheduled run of `slotMs`, keyed as the worker writes it (created_at is the due time). */
export async function insertSlotRun(
  db: Db,
  monitorId: string,
  location: string,
  slotMs: number,
): Promise<void> {
  await db
    .insertInto('runs')
    .values({
      organization_id: ORG,
      id: `run_${monitorId}_${location}_${slotMs}`,
      monitor_id: monitorId,
      execution_group_id: 'grp',
      location,
      environment: 'production',
      status: 'completed',
      triggered_by: 'schedule',
      schedule_slot: String(slotMs),
      success: true,
      errors: jsonColumn([]),
      created_at: new Date(slotMs),
    })
    .execute();
}

/** Every gap, as `monitor/location/slot reason`, sorted. */
export async function gapKeys(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('slot_gaps').selectAll().execute();
  return rows.map((g) => `${g.monitor_id}/${g.location}/${g.schedule_slot} ${g.reason}`).sort();
}

export async function gapTotals(db: Db): Promise<Record<string, number>> {
  const rows = await db.selectFrom('slot_gap_totals').selectAll().execute();
  return Object.fromEntries(rows.map((r) => [`${r.location}/${r.reason}`, Number(r.total)]));
}
