import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';
import { COUNTED_TOTAL_LIMIT } from '../../hub/src/runs/run.repository.js';
import { createRunService } from '../../hub/src/runs/run.service.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { databaseEngines } from '../harness/engines.js';
import { silentLog } from './run-fixtures.js';
import { insertMonitorRow, scheduledRunRow, today } from './run-rows.js';

const scheduledRun = (slot: Date) => ({ ...scheduledRunRow(slot), created_at: slot });

describe.each(databaseEngines)('list totals on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  let runs: ReturnType<typeof createRunService>;
  beforeEach(async () => {
    ({ db, dispose } = await engine.open());
    await insertMonitorRow(db);
    const clock = { now: () => new Date() };
    runs = createRunService({ db, clock, queue: createInProcessRunQueue({ log: silentLog, clock }) });
  });
  afterEach(() => dispose());

  it('counts a list total up to the limit, and estimates it from the day rollups above, today summed from its minutes', async () => {
    const rows = Array.from({ length: COUNTED_TOTAL_LIMIT + 5 }, (_, i) =>
      scheduledRun(new Date(today.getTime() + i * 1000)),
    );
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('runs')
        .values(rows.slice(i, i + 1000))
        .execute();
    // The current hour is not yet summed into today's hour and day rows: it is counted from its minutes
    // (docs/adr/0062-hour-and-day-rollups-from-minutes.md).
    const thisHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db
      .insertInto('run_rollups_minute')
      .values({
        organization_id: 'acme',
        monitor_id: 'mon-1',
        minute: thisHour,
        location: 'default',
        environment: 'production',
        run_count: 12_345,
        success_count: 12_345,
        failure_count: 0,
        duration_count: 0,
        duration_sum_ms: 0,
        histogram: jsonColumn({}),
        error_classes: jsonColumn({}),
        last_started_at: thisHour,
        last_success: true,
      })
      .execute();

    const above = await runs.list('acme', {}, { page: 0, limit: 10 });
    expect(above).toMatchObject({ total: 12_345, totalExact: false });
    expect(above.data).toHaveLength(10);

    const below = await runs.list('acme', { status: 'failed' }, { page: 0, limit: 10 });
    expect(below).toMatchObject({ total: 0, totalExact: true, data: [] });
  });

  it('counts a total below the limit exactly, and pages newest first', async () => {
    const rows = Array.from({ length: 3 }, (_, i) => scheduledRun(new Date(today.getTime() + i * 1000)));
    await db.insertInto('runs').values(rows).execute();
    const page = await runs.list('acme', { monitorId: 'mon-1' }, { page: 1, limit: 2 });
    expect(page).toMatchObject({ total: 3, totalExact: true });
    expect(page.data.map((run) => run.id)).toEqual([rows[0]?.id]);
  });
});
