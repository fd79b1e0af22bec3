import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { startRunRetention } from '../../hub/src/scheduling/run-retention.js';
import { databaseEngines } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { DAY_MS, insertMonitorRow, minuteRollupRow, scheduledRunRow } from '../runs/run-rows.js';

// The scheduler's maintenance pass applies each retention to its own table: RUN_RETENTION_DAYS to runs,
// MINUTE_ROLLUP_RETENTION_DAYS to minute rollups.
const NOW = new Date();
const FIVE_DAYS_AGO = new Date(NOW.getTime() - 5 * DAY_MS);

const [engine] = databaseEngines;

describe(`the scheduler's retention pass on ${engine!.name}`, () => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ db, dispose } = await engine!.open());
    await insertMonitorRow(db);
    await db
      .insertInto('runs')
      .values({ ...scheduledRunRow(FIVE_DAYS_AGO, 'run_old'), created_at: FIVE_DAYS_AGO })
      .execute();
    await db.insertInto('run_rollups_minute').values(minuteRollupRow(FIVE_DAYS_AGO)).execute();
  });
  afterEach(() => dispose());

  const counts = async () => ({
    runs: (await db.selectFrom('runs').select('id').execute()).length,
    minutes: (await db.selectFrom('run_rollups_minute').select('minute').execute()).length,
  });

  const retain = async (
    days: { runs: number; minutes: number },
    until: (c: { runs: number; minutes: number }) => boolean,
  ) => {
    const retention = startRunRetention({
      db,
      clock: { now: () => NOW },
      log: pino({ level: 'silent' }),
      retentionDays: days.runs,
      minuteRollupRetentionDays: days.minutes,
      intervalMs: 20,
    });
    try {
      await eventually('the retention pass', async () => until(await counts()), 10_000);
    } finally {
      await retention.stop();
    }
  };

  it('keeps a run of five days ago at 30 days, and drops its minute rollup at 2', async () => {
    await retain({ runs: 30, minutes: 2 }, (c) => c.minutes === 0);
    expect(await counts()).toEqual({ runs: 1, minutes: 0 });
  });

  it('drops the run at 3 days, and keeps the minute rollup at 30', async () => {
    await retain({ runs: 3, minutes: 30 }, (c) => c.runs === 0);
    expect(await counts()).toEqual({ runs: 0, minutes: 1 });
  });
});
