import { sql, type Kysely } from 'kysely';

// Hourly run rollups: the sums of each (monitor, hour)'s minute rollups, per environment and for every
// environment together (environment ''), plus the hour's uptime summary, so a 7- or 30-day read sums hours
// instead of minutes (docs/metrics.md). Kept by the rollup hook in the transaction that records each result.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('run_rollups_hour')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'timestamptz', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('run_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('success_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_min_ms', 'double precision')
    .addColumn('duration_max_ms', 'double precision')
    .addColumn('histogram', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('error_classes', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    // Null only inside the transaction that creates the row, before it is computed from its minutes.
    .addColumn('first_minute', 'timestamptz')
    .addColumn('up_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('last_started_at', 'timestamptz')
    .addColumn('last_success', 'boolean')
    .addPrimaryKeyConstraint('run_rollups_hour_pk', ['organization_id', 'monitor_id', 'hour', 'environment'])
    .addForeignKeyConstraint(
      'run_rollups_hour_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The fleet endpoints read every monitor of an organization for one environment scope over whole hours.
  await db.schema
    .createIndex('run_rollups_hour_by_org_environment_hour')
    .on('run_rollups_hour')
    .columns(['organization_id', 'environment', 'hour'])
    .execute();
  await backfill(db);
}

/** A frozen copy of refreshHourRollups (hub/src/metrics/hour-rollup.repository.ts) over every minute row. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  await sql`
    with scoped as (
      select r.organization_id, r.monitor_id, date_bin('1 hour', r.minute, timestamptz 'epoch') as hour,
        e.environment, r.minute, r.run_count, r.success_count, r.failure_count, r.duration_count,
        r.duration_sum_ms, r.duration_min_ms, r.duration_max_ms, r.histogram, r.error_classes,
        r.last_started_at, r.last_success
      from run_rollups_minute r cross join lateral (values (r.environment), ('')) e(environment)
    ), spans as (
      select s.*, coalesce(lead(s.minute) over w, s.hour + interval '1 hour') as until,
        row_number() over (partition by s.organization_id, s.monitor_id, s.hour, s.environment
          order by s.minute desc, s.last_started_at desc) as from_last
      from scoped s
      window w as (partition by s.organization_id, s.monitor_id, s.hour, s.environment
        order by s.minute, s.last_started_at)
    ), histograms as (
      select organization_id, monitor_id, hour, environment, jsonb_object_agg(key, n) as counts from (
        select s.organization_id, s.monitor_id, s.hour, s.environment, m.key, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.histogram) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), errors as (
      select organization_id, monitor_id, hour, environment, jsonb_object_agg(key, n) as counts from (
        select s.organization_id, s.monitor_id, s.hour, s.environment, m.key, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.error_classes) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), totals as (
      select organization_id, monitor_id, hour, environment, sum(run_count)::int as run_count,
        sum(success_count)::int as success_count, sum(failure_count)::int as failure_count,
        sum(duration_count)::int as duration_count, sum(duration_sum_ms) as duration_sum_ms,
        min(duration_min_ms) as duration_min_ms, max(duration_max_ms) as duration_max_ms,
        min(minute) as first_minute,
        coalesce(sum(extract(epoch from until - minute)) filter (where last_success), 0) as up_seconds,
        max(last_started_at) as last_started_at, bool_or(last_success) filter (where from_last = 1) as last_success
      from spans group by 1, 2, 3, 4
    )
    insert into run_rollups_hour (organization_id, monitor_id, hour, environment, run_count, success_count,
      failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms, histogram, error_classes,
      first_minute, up_seconds, last_started_at, last_success)
    select t.organization_id, t.monitor_id, t.hour, t.environment, t.run_count, t.success_count, t.failure_count,
      t.duration_count, t.duration_sum_ms, t.duration_min_ms, t.duration_max_ms,
      coalesce(hi.counts, '{}'::jsonb), coalesce(er.counts, '{}'::jsonb), t.first_minute, t.up_seconds,
      t.last_started_at, t.last_success
    from totals t
    left join histograms hi using (organization_id, monitor_id, hour, environment)
    left join errors er using (organization_id, monitor_id, hour, environment)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('run_rollups_hour').ifExists().execute();
}
