import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../hub/src/db/database.js';
import { migrations } from '../../hub/src/db/migrations/index.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { latestRuns, listMonitorsWithLatestRun } from '../../hub/src/metrics/latest-runs.repository.js';
import type { MonitorMetrics, MonitorMetricsRow } from '../../hub/src/metrics/metrics.schema.js';
import { deleteExpiredRuns } from '../../hub/src/scheduling/run-retention.js';
import { createTestDatabase } from '../harness/database.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { at, getData, NOW, recordKnownRun, seedMonitor } from './metrics-fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

// Each monitor's latest runs are kept in monitor_latest_runs by the rollup hook; these check that the kept
// row is what reading the runs newest first (by creation) would give.
describe('the latest runs of each monitor', () => {
  let hub: TestHub;
  const row = async (id: string, query = '') =>
    (await getData<MonitorMetricsRow[]>(hub, `/metrics/monitors?period=24h${query}`)).find(
      (r) => r.monitorId === id,
    );

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock: { now: () => NOW }, metricsFleetMaxAgePercent: 0 });
  });
  afterAll(async () => {
    await hub.close();
  });

  it('are the newest by creation, whatever order the results land in, per environment and overall', async () => {
    const [, late, staging] = await seedMonitor(hub, 'ordered', [
      { at: at('11:10'), success: true, durationMs: 100 },
      { at: at('11:40'), success: false, durationMs: 200, errorClass: 'http' },
      { at: at('11:50'), success: true, durationMs: 300, environment: 'staging' },
    ]);
    // Landing after newer ones: an older success and an older failure change nothing.
    await recordKnownRun(hub.db, 'acme', 'ordered', { at: at('11:00'), success: true, durationMs: 5 });
    await recordKnownRun(hub.db, 'acme', 'ordered', { at: at('11:05'), success: false, durationMs: 5 });

    // Latest run passed, but 3 of 5 runs did: degraded.
    expect(await row('ordered')).toMatchObject({
      status: 'degraded',
      lastRunAt: at('11:50').toISOString(),
      lastSuccessAt: at('11:50').toISOString(),
      lastFailureAt: at('11:40').toISOString(),
    });
    expect(await row('ordered', '&environment=production')).toMatchObject({
      status: 'failing',
      lastRunAt: at('11:40').toISOString(),
      lastSuccessAt: at('11:10').toISOString(),
      lastFailureAt: at('11:40').toISOString(),
    });
    const { lastRun } = await getData<MonitorMetrics>(hub, '/metrics/monitors/ordered?period=24h');
    expect(lastRun).toEqual({
      id: staging,
      status: 'completed',
      success: true,
      startedAt: at('11:50').toISOString(),
      durationMs: 300,
    });
    const production = await latestRuns(hub.db, 'acme', ['ordered'], 'production');
    expect(production.get('ordered')?.lastRunId).toBe(late);
    // The overdue check's read of every monitor: its latest run in any environment, as the '' row says.
    const everyMonitor = await listMonitorsWithLatestRun(hub.db, 'acme');
    expect(everyMonitor.find((m) => m.monitorId === 'ordered')?.lastRunAt).toEqual(at('11:50'));
    expect(
      (await listMonitorsWithLatestRun(hub.db)).find((m) => m.monitorId === 'ordered')?.lastRunAt,
    ).toEqual(at('11:50'));
  });

  it('are forgotten with the runs retention deletes, as the runs left would say', async () => {
    await seedMonitor(hub, 'expiring', [
      { at: new Date('2025-11-01T10:00:00Z'), success: true, durationMs: 10 },
      { at: new Date('2026-01-05T10:00:00Z'), success: false, durationMs: 10, errorClass: 'dns' },
    ]);
    await seedMonitor(hub, 'expired', [
      { at: new Date('2025-11-02T10:00:00Z'), success: true, durationMs: 10 },
    ]);
    await deleteExpiredRuns({ db: hub.db, clock: { now: () => NOW }, retentionDays: 30 });

    const kept = await latestRuns(hub.db, 'acme', ['expiring', 'expired'], undefined);
    expect(kept.get('expired')).toBeUndefined();
    expect(kept.get('expiring')).toMatchObject({
      lastRunAt: new Date('2026-01-05T10:00:00Z'),
      lastSuccessAt: null,
      lastFailureAt: new Date('2026-01-05T10:00:00Z'),
    });
    expect(await row('expired')).toMatchObject({ lastRunAt: null, lastSuccessAt: null, lastFailureAt: null });
    const everyMonitor = await listMonitorsWithLatestRun(hub.db, 'acme');
    expect(everyMonitor.find((m) => m.monitorId === 'expired')?.lastRunAt).toBeNull();
    expect(everyMonitor.find((m) => m.monitorId === 'expiring')?.lastRunAt).toEqual(
      new Date('2026-01-05T10:00:00Z'),
    );
  });
});

describe('migration 0008', () => {
  it('fills the latest runs from the runs already stored', async () => {
    const database = await createTestDatabase();
    const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
    try {
      const migrator = new Migrator({
        db,
        provider: { getMigrations: () => Promise.resolve(migrations) },
        migrationTableName: 'meerkat_migrations',
        migrationLockTableName: 'meerkat_migrations_lock',
      });
      expect((await migrator.migrateTo('0007-metrics-daily-rollups')).error).toBeUndefined();
      await db
        .insertInto('monitors')
        .values({
          organization_id: 'acme',
          id: 'old',
          project: 'shop',
          environment: 'production',
          name: 'old',
          schema_version: '1.0',
          definition: jsonColumn({}),
          updated_at: NOW,
        })
        .execute();
      const run = (id: string, time: string, status: string, environment = 'production') => ({
        organization_id: 'acme',
        id,
        monitor_id: 'old',
        execution_group_id: 'grp',
        location: 'default',
        environment,
        status,
        triggered_by: 'schedule',
        started_at: status === 'pending' ? null : at(time),
        created_at: at(time),
        success: status === 'pending' ? null : status === 'completed',
        duration_ms: status === 'pending' ? null : 10,
        errors: jsonColumn([]),
      });
      await db
        .insertInto('runs')
        .values([
          run('r1', '10:00', 'completed'),
          run('r2', '10:10', 'failed'),
          run('r3', '10:20', 'completed', 'staging'),
          run('r4', '10:30', 'pending'),
        ] as never)
        .execute();
      await migrateToLatest(db);
      const rows = await db
        .selectFrom('monitor_latest_runs')
        .select(['environment', 'last_run_id', 'last_success_at', 'last_failure_at'])
        .orderBy('environment')
        .execute();
      expect(rows).toEqual([
        { environment: '', last_run_id: 'r3', last_success_at: at('10:20'), last_failure_at: at('10:10') },
        {
          environment: 'production',
          last_run_id: 'r2',
          last_success_at: at('10:00'),
          last_failure_at: at('10:10'),
        },
        { environment: 'staging', last_run_id: 'r3', last_success_at: at('10:20'), last_failure_at: null },
      ]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
