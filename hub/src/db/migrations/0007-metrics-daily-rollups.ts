import { sql, type Kysely } from 'kysely';

// Daily run rollups: the sums of each (monitor, environment, UTC day)'s hour rows with the day's uptime summary,
// so a 30-day read sums 30 days instead of 720 hours (docs/metrics.md). Kept by the rollup hook in the
// transaction that records each result, after the hour row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('run_rollups_day')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('day', 'timestamptz', (c) => c.notNull())
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
    // Null only inside the transaction that creates the row, before it is computed from its hours.
    .addColumn('first_minute', 'timestamptz')
    .addColumn('up_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('last_started_at', 'timestamptz')
    .addColumn('last_success', 'boolean')
    .addPrimaryKeyConstraint('run_rollups_day_pk', ['organization_id', 'monitor_id', 'day', 'environment'])
    .addForeignKeyConstraint(
      'run_rollups_day_monitor_fk',
      ['organization_id', 'monitor_id'],
      'monitors',
      ['organization_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('run_rollups_day_by_org_environment_day')
    .on('run_rollups_day')
    .columns(['organization_id', 'environment', 'day'])
    .execute();
  await backfill(db);
}

/** A frozen copy of refreshDayRollups (hub/src/metrics/day-rollup.repository.ts) over every hour row. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  await sql`
    with scoped as (
      select h.organization_id, h.monitor_id, h.environment, h.first_minute as first_at,
        h.hour + interval '1 hour' as internal_end, h.up_seconds as internal_up, h.run_count, h.success_count,
        h.failure_count, h.duration_count, h.duration_sum_ms, h.duration_min_ms, h.duration_max_ms, h.histogram,
        h.error_classes, h.last_started_at, h.last_success,
        date_bin(interval '1 day', h.first_minute, timestamptz 'epoch') as bucket
      from run_rollups_hour h where h.first_minute is not null
    ), spans as (
      select s.*, coalesce(lead(s.first_at) over w, s.bucket + interval '1 day') as until,
        row_number() over (partition by organization_id, monitor_id, bucket, environment
          order by s.first_at desc, s.last_started_at desc) as from_last
      from scoped s
      window w as (partition by organization_id, monitor_id, bucket, environment order by s.first_at, s.last_started_at)
    ), histograms as (
      select organization_id, monitor_id, bucket, environment, jsonb_object_agg(k, n) as counts from (
        select organization_id, monitor_id, bucket, environment, m.key as k, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.histogram) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), errors as (
      select organization_id, monitor_id, bucket, environment, jsonb_object_agg(k, n) as counts from (
        select organization_id, monitor_id, bucket, environment, m.key as k, sum(m.value::int) as n
        from scoped s cross join lateral jsonb_each_text(s.error_classes) m group by 1, 2, 3, 4, 5) x
      group by 1, 2, 3, 4
    ), totals as (
      select organization_id, monitor_id, bucket, environment, sum(run_count)::int as run_count,
        sum(success_count)::int as success_count, sum(failure_count)::int as failure_count,
        sum(duration_count)::int as duration_count, sum(duration_sum_ms) as duration_sum_ms,
        min(duration_min_ms) as duration_min_ms, max(duration_max_ms) as duration_max_ms,
        min(first_at) as first_minute,
        sum(internal_up) + coalesce(sum(extract(epoch from greatest(until, internal_end) - internal_end))
          filter (where last_success), 0) as up_seconds,
        max(last_started_at) as last_started_at, bool_or(last_success) filter (where from_last = 1) as last_success
      from spans group by 1, 2, 3, 4
    )
    insert into run_rollups_day (organization_id, monitor_id, day, environment, run_count, success_count,
      failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms, histogram, error_classes,
      first_minute, up_seconds, last_started_at, last_success)
    select t.organization_id, t.monitor_id, t.bucket, t.environment, t.run_count, t.success_count, t.failure_count,
      t.duration_count, t.duration_sum_ms, t.duration_min_ms, t.duration_max_ms,
      coalesce(hi.counts, '{}'::jsonb), coalesce(er.counts, '{}'::jsonb), t.first_minute, t.up_seconds,
      t.last_started_at, t.last_success
    from totals t
    left join histograms hi using (organization_id, monitor_id, bucket, environment)
    left join errors er using (organization_id, monitor_id, bucket, environment)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('run_rollups_day').ifExists().execute();
}
