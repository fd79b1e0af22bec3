import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { databaseEngines } from '../harness/engines.js';

const ADDED = ['run_rollups_day.known_seconds', 'run_rollups_hour.known_seconds', 'slot_gaps.folded_at'];

describe.each(databaseEngines)('migration 0016 (uptime over known time) on $name', (engine) => {
  it('goes down to 0015 without its columns and gap markers, and up again', async () => {
    const { db, dispose } = await engine.open();
    const added = async () =>
      (
        await sql<{ column: string }>`select table_name || '.' || column_name as column
          from information_schema.columns where table_schema = 'public'
            and column_name in ('known_seconds', 'folded_at') and table_name not like '%\\_p%'
          order by 1`.execute(db)
      ).rows.map((r) => r.column);
    const minuteLastSuccessNullable = async () =>
      (
        await sql<{ nullable: string }>`select is_nullable as nullable from information_schema.columns
          where table_schema = 'public' and table_name = 'run_rollups_minute' and column_name = 'last_success'`.execute(
          db,
        )
      ).rows[0]?.nullable;
    try {
      expect(await added()).toEqual(ADDED);
      expect(await minuteLastSuccessNullable()).toBe('YES');
      await sql`insert into monitors (organization_id, id, project, environment, name, schema_version, definition)
        values ('acme', 'm', 'shop', 'production', 'm', '1.0', '{}'::jsonb)`.execute(db);
      // A run's minute and a gap marker: going down keeps the run's, drops the marker (it has no runs).
      await sql`insert into run_rollups_minute (organization_id, monitor_id, minute, location, environment,
          run_count, success_count, failure_count, duration_count, duration_sum_ms, histogram, error_classes,
          last_started_at, last_success)
        values ('acme', 'm', '2026-01-10T12:00:00Z', 'default', 'production', 1, 1, 0, 0, 0, '{}', '{}',
          '2026-01-10T12:00:10Z', true),
        ('acme', 'm', '2026-01-10T12:01:00Z', 'default', 'production', 0, 0, 0, 0, 0, '{}', '{}',
          '2026-01-10T12:01:10Z', null)`.execute(db);
      await migrateTo(db, '0015-heartbeats');
      expect(await added()).toEqual([]);
      expect(await minuteLastSuccessNullable()).toBe('NO');
      const { rows } = await sql<{ minute: Date }>`select minute from run_rollups_minute`.execute(db);
      expect(rows.map((r) => r.minute.toISOString())).toEqual(['2026-01-10T12:00:00.000Z']);
      await migrateToLatest(db);
      expect(await added()).toEqual(ADDED);
      expect(await minuteLastSuccessNullable()).toBe('YES');
    } finally {
      await dispose();
    }
  }, 180_000);
});
