import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/tables.js';

type Executor = Db | Transaction<Database>;

/** The hourly tier's "every environment" rows carry this environment (no real environment is empty). */
export const ALL_ENVIRONMENTS = '';

const HOUR_MS = 3_600_000;

export function hourOf(time: Date): Date {
  return new Date(Math.floor(time.getTime() / HOUR_MS) * HOUR_MS);
}

/** The first whole hour at or after `time`. */
export function hourCeilOf(time: Date): Date {
  return new Date(Math.ceil(time.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * Recomputes the hourly rows of every (monitor, hour) that has minute rows matching `minuteFilter` (a condition
 * on `r`, a `run_rollups_minute` row), once per environment and once for every environment together. Each hour
 * row is the sum of its minute rows plus its uptime summary: the first minute with a result, the seconds from
 * then to the end of the hour during which the latest result was a success, and the hour's last result.
 */
export async function refreshHourRollups(db: Executor, minuteFilter: RawBuilder<unknown>): Promise<void> {
  await sql`
    with scoped as (
      select r.organization_id, r.monitor_id, date_bin('1 hour', r.minute, timestamptz 'epoch') as hour,
        e.environment, r.minute, r.run_count, r.success_count, r.failure_count, r.duration_count,
        r.duration_sum_ms, r.duration_min_ms, r.duration_max_ms, r.histogram, r.error_classes,
        r.last_started_at, r.last_success
      from run_rollups_minute r cross join lateral (values (r.environment), (${ALL_ENVIRONMENTS})) e(environment)
      where ${minuteFilter}
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
    insert into run_rollups_hour as h (organization_id, monitor_id, hour, environment, run_count, success_count,
      failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms, histogram, error_classes,
      first_minute, up_seconds, last_started_at, last_success)
    select t.organization_id, t.monitor_id, t.hour, t.environment, t.run_count, t.success_count, t.failure_count,
      t.duration_count, t.duration_sum_ms, t.duration_min_ms, t.duration_max_ms,
      coalesce(hi.counts, '{}'::jsonb), coalesce(er.counts, '{}'::jsonb), t.first_minute, t.up_seconds,
      t.last_started_at, t.last_success
    from totals t
    left join histograms hi using (organization_id, monitor_id, hour, environment)
    left join errors er using (organization_id, monitor_id, hour, environment)
    on conflict (organization_id, monitor_id, hour, environment) do update set
      run_count = excluded.run_count, success_count = excluded.success_count,
      failure_count = excluded.failure_count, duration_count = excluded.duration_count,
      duration_sum_ms = excluded.duration_sum_ms, duration_min_ms = excluded.duration_min_ms,
      duration_max_ms = excluded.duration_max_ms, histogram = excluded.histogram,
      error_classes = excluded.error_classes, first_minute = excluded.first_minute,
      up_seconds = excluded.up_seconds, last_started_at = excluded.last_started_at,
      last_success = excluded.last_success`.execute(db);
}

/**
 * Brings one monitor's hour up to date after a run was added to one of its minutes. The hour rows are locked
 * first (always in the same order), so a concurrent writer of the same hour waits for this transaction and
 * then recomputes from a snapshot that includes its minute: no update is lost.
 */
export async function refreshMonitorHour(
  db: Executor,
  key: { organizationId: string; monitorId: string; environment: string; minute: Date },
): Promise<void> {
  const hour = hourOf(key.minute);
  await sql`
    insert into run_rollups_hour as h (organization_id, monitor_id, hour, environment)
    values (${key.organizationId}, ${key.monitorId}, ${hour}, ${ALL_ENVIRONMENTS}),
      (${key.organizationId}, ${key.monitorId}, ${hour}, ${key.environment})
    on conflict (organization_id, monitor_id, hour, environment) do update set run_count = h.run_count`.execute(
    db,
  );
  await refreshHourRollups(
    db,
    sql`r.organization_id = ${key.organizationId} and r.monitor_id = ${key.monitorId}
      and r.minute >= ${hour} and r.minute < ${new Date(hour.getTime() + HOUR_MS)}`,
  );
}
