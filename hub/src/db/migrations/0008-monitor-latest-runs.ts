import { sql, type Kysely } from 'kysely';

// Each monitor's latest finished, successful and failed run, per environment and for every environment ('' ), kept
// by the rollup hook in the transaction that records each result, so the fleet metrics read one row per monitor
// instead of walking its runs (docs/metrics.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('monitor_latest_runs')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('last_run_id', 'text', (c) => c.notNull())
    .addColumn('last_run_status', 'text', (c) => c.notNull())
    .addColumn('last_run_success', 'boolean')
    .addColumn('last_run_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_run_duration_ms', 'double precision')
    .addColumn('last_run_created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_success_created_at', 'timestamptz')
    .addColumn('last_failure_at', 'timestamptz')
    .addColumn('last_failure_created_at', 'timestamptz')
    .addPrimaryKeyConstraint('monitor_latest_runs_pk', ['organization_id', 'monitor_id', 'environment'])
    .addForeignKeyConstraint(
      'monitor_latest_runs_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // Backfill from the runs kept so far; a run's time is when it started (its creation when it never started).
  await sql`
    with finished as (
      select r.organization_id, r.monitor_id, e.environment, r.id, r.status, r.success,
        coalesce(r.started_at, r.created_at) as at, r.duration_ms, r.created_at
      from runs r cross join lateral (values (r.environment), ('')) e(environment)
      where r.status in ('completed', 'failed')
    ), latest as (
      select distinct on (organization_id, monitor_id, environment) * from finished
      order by organization_id, monitor_id, environment, created_at desc
    ), ok as (
      select distinct on (organization_id, monitor_id, environment) organization_id, monitor_id, environment, at,
        created_at
      from finished where status = 'completed' order by organization_id, monitor_id, environment, created_at desc
    ), ko as (
      select distinct on (organization_id, monitor_id, environment) organization_id, monitor_id, environment, at,
        created_at
      from finished where status = 'failed' order by organization_id, monitor_id, environment, created_at desc
    )
    insert into monitor_latest_runs (organization_id, monitor_id, environment, last_run_id, last_run_status,
      last_run_success, last_run_at, last_run_duration_ms, last_run_created_at, last_success_at,
      last_success_created_at, last_failure_at, last_failure_created_at)
    select l.organization_id, l.monitor_id, l.environment, l.id, l.status, l.success, l.at, l.duration_ms,
      l.created_at, ok.at, ok.created_at, ko.at, ko.created_at
    from latest l left join ok using (organization_id, monitor_id, environment)
      left join ko using (organization_id, monitor_id, environment)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('monitor_latest_runs').ifExists().execute();
}
