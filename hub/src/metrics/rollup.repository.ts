import { sql } from 'kysely';
import { timestampArray } from '../db/array-params.js';
import type { Executor } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import { dayPartitionsOf } from '../db/day-partitions.js';
import type { DurationBuckets } from './duration-histogram.js';
import { ALL_ENVIRONMENTS } from './hour-rollup.repository.js';
import { liveDayRows, liveHourRows } from './live-rollups.repository.js';
import { HOURS_SUMMED_UNTIL } from './rollup-fold.repository.js';
import {
  addRunCounts,
  KNOWN_SECONDS,
  RUN_COUNT_COLUMNS,
  RUN_COUNT_VALUES,
  runCountArrays,
  type RunCounts,
} from './rollup-tier.repository.js';
import { dayCeilOf, dayOf, hourCeilOf, hourOf } from './time-buckets.js';

/**
 * `run_rollups_minute` is partitioned by day of `minute`, and days past MINUTE_ROLLUP_RETENTION_DAYS are dropped
 * (docs/adr/0024-minute-rollup-retention.md): hour and day rows keep what they summed.
 */
export const minuteRollupPartitions = dayPartitionsOf('run_rollups_minute', 'minute');

/** One finished run's contribution to its minute. */
export interface RollupIncrement extends RunCounts {
  organizationId: string;
  monitorId: string;
  minute: Date;
  location: string;
  environment: string;
  startedAt: Date;
}

/**
 * Adds runs to their minutes; concurrent writers of the same minute serialize on the row. At most one run per
 * minute row (runs of distinct monitors): a statement may not update a row twice. The minutes with no row yet (a
 * run a minute: most) get a plain insert in a savepoint, the others the upsert: `on conflict` would make every new
 * row a speculative insert and log a confirmation for it (48 bytes of WAL a run, docs/adr/0068). When another
 * writer commits a new minute row between the check and the insert, the unique key refuses it: from the savepoint,
 * the upsert of every run, as before.
 */
export async function addRunsToRollups(db: Executor, runs: readonly RollupIncrement[]): Promise<void> {
  if (runs.length === 0) return;
  if (!db.isTransaction) return db.transaction().execute((tx) => addRunsToRollups(tx, runs));
  await sql`savepoint minute_rollups`.execute(db);
  let upserted: readonly RollupIncrement[];
  try {
    const { rows } = await sql<MinuteKey>`
      insert into run_rollups_minute as r (organization_id, monitor_id, minute, location, environment,
        ${RUN_COUNT_COLUMNS}, last_started_at, last_success)
      ${incrementsOf(runs)}
      where not exists (select 1 from run_rollups_minute x where x.organization_id = o and x.monitor_id = m
        and x.minute = mi and x.location = l and x.environment = e)
      order by n
      returning organization_id, monitor_id, minute, location, environment`.execute(db);
    await sql`release savepoint minute_rollups`.execute(db);
    const inserted = new Set(rows.map(minuteKey));
    upserted = runs.filter(
      (run) =>
        !inserted.has(
          minuteKey({
            organization_id: run.organizationId,
            monitor_id: run.monitorId,
            minute: run.minute,
            location: run.location,
            environment: run.environment,
          }),
        ),
    );
  } catch (error) {
    if (!hasSqlState(error, SqlState.uniqueViolation)) throw error;
    await sql`rollback to savepoint minute_rollups`.execute(db);
    upserted = runs;
  }
  if (upserted.length === 0) return;
  await sql`
    insert into run_rollups_minute as r (organization_id, monitor_id, minute, location, environment,
      ${RUN_COUNT_COLUMNS}, last_started_at, last_success)
    ${incrementsOf(upserted)}
    order by n
    on conflict (organization_id, monitor_id, minute, location, environment) do update set ${addRunCounts('r')},
      last_success = case when excluded.last_started_at >= r.last_started_at
        then excluded.last_success else r.last_success end,
      last_started_at = greatest(r.last_started_at, excluded.last_started_at)`.execute(db);
}

interface MinuteKey {
  organization_id: string;
  monitor_id: string;
  minute: Date;
  location: string;
  environment: string;
}

/** A minute row's key as one string: which runs the plain insert wrote. */
const minuteKey = (row: MinuteKey) =>
  [row.organization_id, row.monitor_id, row.minute.getTime(), row.location, row.environment].join('\u0000');

/** The runs as minute rows to insert, in order (`n`). */
function incrementsOf(runs: readonly RollupIncrement[]) {
  return sql`select o, m, mi, l, e, ${RUN_COUNT_VALUES}, st, s
    from unnest(${runs.map((r) => r.organizationId)}::text[], ${runs.map((r) => r.monitorId)}::text[],
      ${timestampArray(runs.map((r) => r.minute))}, ${runs.map((r) => r.location)}::text[],
      ${runs.map((r) => r.environment)}::text[], ${runCountArrays(runs)}, ${timestampArray(runs.map((r) => r.startedAt))})
      with ordinality as u(o, m, mi, l, e, s, d, b, c, st, n)`;
}

/** Which rollups a read covers: minutes `fromMinute` to `toMinute` inclusive, optionally narrowed. */
export interface RollupScope {
  organizationId: string;
  fromMinute: Date;
  /** The period's start: whole hours are read from the first hour boundary at or after it. */
  periodStart: Date;
  toMinute: Date;
  monitorId?: string | undefined;
  environment?: string | undefined;
}

/** A stretch of a read served by one tier: rows at or after `from` and before `to` (minutes: up to `to`). */
export interface RollupSegment {
  tier: 'minute' | 'hour' | 'day';
  from: Date;
  to: Date;
}

/**
 * Splits a read into the coarsest rows that fit: minute rows for the partial hours at the edges (the minutes
 * before the first whole hour after `periodStart`, and the hour containing the end, up to `toMinute`), hour
 * rows for the partial days next to them and for the current day, day rows for the whole days between.
 */
export function planSegments(scope: Pick<RollupScope, 'fromMinute' | 'periodStart' | 'toMinute'>) {
  const firstHour = hourCeilOf(scope.periodStart);
  const lastHour = hourOf(scope.toMinute);
  if (firstHour >= lastHour)
    return [{ tier: 'minute', from: scope.fromMinute, to: scope.toMinute }] satisfies RollupSegment[];
  const firstDay = dayCeilOf(firstHour);
  const lastDay = dayOf(lastHour);
  const segments: RollupSegment[] = [{ tier: 'minute', from: scope.fromMinute, to: firstHour }];
  if (firstDay < lastDay)
    segments.push(
      { tier: 'hour', from: firstHour, to: firstDay },
      { tier: 'day', from: firstDay, to: lastDay },
      { tier: 'hour', from: lastDay, to: lastHour },
    );
  else segments.push({ tier: 'hour', from: firstHour, to: lastHour });
  segments.push({ tier: 'minute', from: lastHour, to: scope.toMinute });
  return segments.filter((s) => s.from < s.to || s === segments.at(-1));
}

/**
 * The rollup rows a read covers, in one shape, from the segments of `planSegments`. A minute row is an instant
 * (`first_at` = `internal_end`, no inner uptime); an hour or day row carries its own uptime and known time
 * from its first minute to its end. Without an environment the hour and day "every environment" rows are read.
 */
export function rollupSource(scope: RollupScope) {
  const monitorFilter = (alias: string) =>
    scope.monitorId === undefined ? sql`` : sql`and ${sql.ref(`${alias}.monitor_id`)} = ${scope.monitorId}`;
  const select = (segment: RollupSegment, last: boolean) => {
    if (segment.tier === 'minute')
      return sql`
        select r.monitor_id, r.run_count, r.success_count, r.failure_count, r.duration_count, r.duration_sum_ms,
          r.duration_min_ms, r.duration_max_ms, r.histogram, r.error_classes, r.minute as first_at,
          r.minute as internal_end, 0::float8 as internal_up, 0::float8 as internal_known, r.last_started_at, r.last_success
        from run_rollups_minute r where r.organization_id = ${scope.organizationId} and r.minute >= ${segment.from}
          and ${last ? sql`r.minute <= ${segment.to}` : sql`r.minute < ${segment.to}`} ${monitorFilter('r')}
          ${scope.environment === undefined ? sql`` : sql`and r.environment = ${scope.environment}`}`;
    const tierScope = {
      organizationId: scope.organizationId,
      environment: scope.environment ?? ALL_ENVIRONMENTS,
      monitorIds: scope.monitorId === undefined ? undefined : [scope.monitorId],
      since: segment.from,
    };
    const table = segment.tier === 'hour' ? liveHourRows(tierScope) : liveDayRows(tierScope);
    const column = sql.ref(`t.${segment.tier}`);
    const width = segment.tier === 'hour' ? sql`interval '1 hour'` : sql`interval '1 day'`;
    return sql`
      select t.monitor_id, t.run_count, t.success_count, t.failure_count, t.duration_count, t.duration_sum_ms,
        t.duration_min_ms, t.duration_max_ms, t.histogram, t.error_classes, t.first_minute as first_at,
        ${column} + ${width} as internal_end, t.up_seconds as internal_up,
        ${KNOWN_SECONDS('t', segment.tier)} as internal_known, t.last_started_at, t.last_success
      from ${table} t where t.organization_id = ${scope.organizationId} and ${column} >= ${segment.from}
        and ${column} < ${segment.to} and t.environment = ${scope.environment ?? ALL_ENVIRONMENTS}
        ${monitorFilter('t')}`;
  };
  const segments = planSegments(scope);
  return sql`(${sql.join(
    segments.map((segment, index) => select(segment, index === segments.length - 1)),
    sql` union all `,
  )})`;
}

export interface RollupTotals {
  monitorId: string;
  runs: number;
  successes: number;
  failures: number;
  durationCount: number;
  durationSumMs: number;
  durationMinMs: number | null;
  durationMaxMs: number | null;
  histogram: DurationBuckets;
  errorClasses: Record<string, number>;
}

/** Per monitor and key of a jsonb count map column: the summed counts. */
async function sumCountMaps(db: Executor, scope: RollupScope, column: 'histogram' | 'error_classes') {
  const { rows } = await sql<{ monitorId: string; key: string; count: number }>`
    select r.monitor_id as "monitorId", m.key, sum(m.value::int)::int as count
    from ${rollupSource(scope)} r cross join lateral jsonb_each_text(${sql.ref(`r.${column}`)}) m
    group by r.monitor_id, m.key`.execute(db);
  const byMonitor = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const counts = byMonitor.get(row.monitorId) ?? {};
    counts[row.key] = row.count;
    byMonitor.set(row.monitorId, counts);
  }
  return byMonitor;
}

/** Per monitor: the sums of its rollups in scope, with merged histogram and error classes (unless not wanted). */
export async function sumRollups(
  db: Executor,
  scope: RollupScope,
  { withErrorClasses = true }: { withErrorClasses?: boolean } = {},
): Promise<Map<string, RollupTotals>> {
  const [{ rows }, histograms, errorClasses] = await Promise.all([
    sql<Omit<RollupTotals, 'histogram' | 'errorClasses'>>`
      select r.monitor_id as "monitorId", sum(r.run_count)::int as runs,
        sum(r.success_count)::int as successes, sum(r.failure_count)::int as failures,
        sum(r.duration_count)::int as "durationCount", sum(r.duration_sum_ms)::float8 as "durationSumMs",
        min(r.duration_min_ms) as "durationMinMs", max(r.duration_max_ms) as "durationMaxMs"
      from ${rollupSource(scope)} r group by r.monitor_id`.execute(db),
    sumCountMaps(db, scope, 'histogram'),
    withErrorClasses ? sumCountMaps(db, scope, 'error_classes') : new Map<string, Record<string, number>>(),
  ]);
  return new Map(
    rows.map((row) => [
      row.monitorId,
      {
        ...row,
        histogram: histograms.get(row.monitorId) ?? {},
        errorClasses: errorClasses.get(row.monitorId) ?? {},
      },
    ]),
  );
}

export interface UptimeSpans {
  monitorId: string;
  /** When the first result in scope took effect (clamped to `periodStart`). */
  firstChangeAt: Date;
  /** Seconds from `firstChangeAt` to `periodEnd` during which the latest result was a success. */
  upSeconds: number;
  /** Seconds from `firstChangeAt` to `periodEnd` not held by a gap (docs/adr/0048-uptime-counts-known-time.md). */
  knownSeconds: number;
}

/**
 * Per monitor: the latest result of each minute holds from that minute (or `periodStart`) until the next minute
 * with a result (or `periodEnd`); the seconds those successes hold are summed, and those any result (not a gap
 * marker) holds.
 */
export async function uptimeSpans(
  db: Executor,
  scope: RollupScope,
  period: { start: Date; end: Date },
): Promise<Map<string, UptimeSpans>> {
  // Rows in (time, latest start) order: a row's last result holds from its end until the next row's first
  // change, so of several minute rows in one minute (several locations) only the one with the latest run holds
  // for the rest of that minute. An hour row adds the seconds it was up from its first minute to its end.
  const { rows } = await sql<UptimeSpans>`
    with spans as (
      select r.monitor_id, greatest(r.first_at, ${period.start}::timestamptz) as since, r.last_success as up,
        r.internal_up, r.internal_known, greatest(r.internal_end, ${period.start}::timestamptz) as internal_end,
        coalesce(lead(r.first_at) over (partition by r.monitor_id order by r.first_at, r.last_started_at),
          ${period.end}::timestamptz) as until
      from ${rollupSource(scope)} r
    )
    select monitor_id as "monitorId", min(since) as "firstChangeAt", (sum(internal_up) + coalesce(sum(extract(
      epoch from greatest(until, internal_end) - internal_end)) filter (where up), 0))::float8 as "upSeconds",
      (sum(internal_known) + coalesce(sum(extract(epoch from greatest(until, internal_end) - internal_end))
        filter (where up is not null), 0))::float8 as "knownSeconds"
    from spans group by monitor_id`.execute(db);
  return new Map(rows.map((row) => [row.monitorId, row]));
}

/**
 * Per monitor: the latest result recorded before `before` (the state a period starts in), if any; null when that
 * was a gap (the period starts with no data). From the minute
 * rows, or when none is left before it (minute rows past their retention are gone), from the hour rows of the
 * whole hours before; `tier: 'hour'` reads only those, for a period whose minute rows may be gone.
 */
export async function resultsBefore(
  db: Executor,
  organizationId: string,
  monitorIds: readonly string[],
  { before, tier }: { before: Date; tier: 'minute' | 'hour' },
  environment: string | undefined,
): Promise<Map<string, boolean | null>> {
  if (monitorIds.length === 0) return new Map();
  // The hours not yet summed end in their last minute row (ADR 0062); hours before the watermark are summed.
  const fromMinutesNotSummed = sql`(select r.last_success from run_rollups_minute r
    where r.organization_id = ${organizationId} and r.monitor_id = m.id and r.minute >= ${HOURS_SUMMED_UNTIL}
      and r.minute < ${hourOf(before)} ${environment === undefined ? sql`` : sql`and r.environment = ${environment}`}
    order by r.minute desc, r.last_started_at desc limit 1)`;
  const fromHours = sql`${fromMinutesNotSummed} union all (select h.last_success from run_rollups_hour h
    where h.organization_id = ${organizationId} and h.monitor_id = m.id and h.hour < ${hourOf(before)}
      and h.hour < ${HOURS_SUMMED_UNTIL} and h.environment = ${environment ?? ALL_ENVIRONMENTS}
    order by h.hour desc limit 1)`;
  // Without an ORDER BY, a UNION ALL under LIMIT 1 reads its second branch only when the first has no row.
  const prior =
    tier === 'hour'
      ? sql`${fromHours} limit 1`
      : sql`(select r.last_success from run_rollups_minute r
          where r.organization_id = ${organizationId} and r.monitor_id = m.id and r.minute < ${before}
            ${environment === undefined ? sql`` : sql`and r.environment = ${environment}`}
          order by r.minute desc, r.last_started_at desc limit 1)
        union all ${fromHours} limit 1`;
  const { rows } = await sql<{ monitorId: string; up: boolean | null }>`
    select m.id as "monitorId", prior.last_success as up
    from unnest(${[...monitorIds]}::text[]) as m(id) cross join lateral (${prior}) as prior`.execute(db);
  return new Map(rows.map((row) => [row.monitorId, row.up]));
}
