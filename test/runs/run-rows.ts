// Rows written straight to the database, for tests of the runs table itself (partitions, list totals).
import { afterEach, beforeEach } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import type { EngineUnderTest } from '../harness/engines.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

export const DAY_MS = 86_400_000;
/** Midnight UTC of the day the test runs. */
export const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);

/** A monitor row of organization `acme` with an empty definition: enough for runs to reference it. */
export async function insertMonitorRow(db: Db, id = 'mon-1'): Promise<void> {
  await db
    .insertInto('monitors')
    .values({
      organization_id: 'acme',
      id,
      project: 'shop',
      environment: 'production',
      name: id,
      schema_version: '1.0',
      definition: jsonColumn({}),
      updated_at: new Date(),
    })
    .execute();
}

/** A completed scheduled run of `mon-1` for the slot due at `slot`. */
export const scheduledRunRow = (slot: Date, id = `run_${slot.getTime()}`) => ({
  organization_id: 'acme',
  id,
  monitor_id: 'mon-1',
  execution_group_id: 'grp',
  location: 'default',
  environment: 'production',
  status: 'completed' as const,
  triggered_by: 'schedule' as const,
  schedule_slot: String(slot.getTime()),
  success: true,
  errors: jsonColumn([]),
});

/** A minute rollup row of `mon-1`: one passing run of 10 ms at `minute`. */
export const minuteRollupRow = (minute: Date) => ({
  organization_id: 'acme',
  monitor_id: 'mon-1',
  minute,
  location: 'default',
  environment: 'production',
  run_count: 1,
  success_count: 1,
  failure_count: 0,
  duration_count: 1,
  duration_sum_ms: 10,
  duration_min_ms: 10,
  duration_max_ms: 10,
  histogram: jsonColumn({}),
  error_classes: jsonColumn({}),
  last_started_at: minute,
  last_success: true,
});

/** A fresh migrated database of `engine` for each test, holding the monitor row `mon-1`: read it inside a test. */
export function freshDatabaseWithMonitor(engine: EngineUnderTest): () => Db {
  let db: Db | undefined;
  let dispose: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    ({ db, dispose } = await engine.open());
    await insertMonitorRow(db);
  });
  afterEach(() => dispose?.());
  return () => {
    if (db === undefined) throw new Error('the database is opened before each test');
    return db;
  };
}
