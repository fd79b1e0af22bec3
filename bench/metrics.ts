// Latency of the metrics endpoints over months of runs (`npx tsx bench/metrics.ts [--monitors N] [--days D]`).
// Seeds N monitors x D days of one-minute runs into a real PostgreSQL with generate_series: rollups for all
// of it (hourly rows directly, minute rows at the edges), raw runs for the last 25 hours; then times each
// endpoint for each period.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { createApiKeyVerifier, generateApiKey, hashApiKey } from '../hub/src/auth/api-keys.js';
import { createCredentialCipher, generateCredentialKey } from '../hub/src/crypto/credential-cipher.js';
import { openDatabase, type Db } from '../hub/src/db/database.js';
import { migrateToLatest } from '../hub/src/db/migrator.js';
import * as monitorLatestRuns from '../hub/src/db/migrations/0008-monitor-latest-runs.js';
import { createApp } from '../hub/src/server/app.js';
import { HISTOGRAM_GROWTH } from '../hub/src/metrics/duration-histogram.js';
import { refreshDayRollups } from '../hub/src/metrics/day-rollup.repository.js';
import { refreshHourRollups } from '../hub/src/metrics/hour-rollup.repository.js';
import { rollupSource } from '../hub/src/metrics/rollup.repository.js';
import { createInProcessRunQueue } from '../hub/src/scheduling/in-process-run-queue.js';
import { createLocalSecretStore } from '../hub/src/secrets/local-secret-store.js';
import { startTestServices } from '../test/harness/global-setup.js';

const { values } = parseArgs({
  options: {
    monitors: { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    samples: { type: 'string', default: '20' },
    explain: { type: 'boolean', default: false },
    // With DATABASE_URL: keep what an earlier run seeded there (the bench organization) instead of seeding again.
    reuse: { type: 'boolean', default: false },
  },
});
const monitors = Number(values.monitors);
const days = Number(values.days);
const samples = Number(values.samples);
// Off the hour, so every period has partial hours at both edges, read from minute rows.
const now = new Date('2026-01-31T00:30:30Z');
const HOUR_MS = 3_600_000;
const lastHour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
/** Runs and minute rollups (as the hook writes them) cover the last 25 hours and the edges of 7d and 30d. */
const recentFrom = new Date(lastHour.getTime() - 25 * HOUR_MS);
const bucketOf = sql`(floor(ln(duration) / ln(${HISTOGRAM_GROWTH})) + 1)::int::text`;

/** 2% of runs fail, durations 50-450 ms; `withRuns` also inserts the runs themselves. */
async function seedMinutes(db: Db, from: Date, minutes: number, withRuns: boolean): Promise<void> {
  const generated = sql`
    select m, ${from}::timestamptz + k * interval '1 minute' as at, random() > 0.02 as ok,
      50 + random() * 400 as duration
    from generate_series(1, ${monitors}) m cross join generate_series(0, ${minutes - 1}) k`;
  await sql`
    with generated as (${generated}), runs_inserted as (
      insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
        triggered_by, started_at, completed_at, duration_ms, success, errors, created_at)
      select 'bench', 'run-' || m || '-' || extract(epoch from at)::bigint, 'mon-' || m, 'grp', 'default',
        'production', case when ok then 'completed' else 'failed' end, 'schedule', at, at, duration, ok,
        case when ok then '[]'::jsonb else '["get: connect ECONNREFUSED"]'::jsonb end, at
      from generated where ${withRuns}::boolean
    )
    insert into run_rollups_minute (organization_id, monitor_id, minute, location, environment, run_count,
      success_count, failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms,
      histogram, error_classes, last_started_at, last_success)
    select 'bench', 'mon-' || m, at, 'default', 'production', 1, ok::int, (not ok)::int, 1, duration, duration,
      duration, jsonb_build_object(${bucketOf}, 1),
      case when ok then '{}'::jsonb else '{"connection": 1}'::jsonb end, at, ok
    from generated`.execute(db);
}

/**
 * Older hours go straight into the hourly tier (60 one-minute runs each, aggregated in SQL), for every
 * environment ('') and for production: 43 million runs through the hook would take hours on this machine.
 */
async function seedHours(db: Db, from: Date, hours: number): Promise<void> {
  await sql`
    with samples as (
      select m, ${from}::timestamptz + h * interval '1 hour' as hour, random() > 0.02 as ok,
        50 + random() * 400 as duration
      from generate_series(1, ${monitors}) m cross join generate_series(0, ${hours - 1}) h
        cross join generate_series(1, 60) k
    ), buckets as (
      select m, hour, ${bucketOf} as bucket, count(*) as n from samples group by 1, 2, 3
    ), histograms as (
      select m, hour, jsonb_object_agg(bucket, n) as histogram from buckets group by 1, 2
    ), totals as (
      select m, hour, count(*)::int as runs, (count(*) filter (where ok))::int as oks, sum(duration) as total,
        min(duration) as fastest, max(duration) as slowest from samples group by 1, 2
    )
    insert into run_rollups_hour (organization_id, monitor_id, hour, environment, run_count, success_count,
      failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms, histogram,
      error_classes, first_minute, up_seconds, last_started_at, last_success)
    select 'bench', 'mon-' || m, hour, e.environment, runs, oks, runs - oks, runs, total, fastest, slowest,
      histogram, case when runs > oks then jsonb_build_object('connection', runs - oks) else '{}' end, hour,
      60 * oks, hour + interval '59 minutes', true
    from totals join histograms using (m, hour) cross join (values (''), ('production')) e(environment)`.execute(
    db,
  );
}

async function seed(db: Db): Promise<void> {
  await sql`
    insert into monitors (organization_id, id, project, environment, name, schema_version, definition, updated_at)
    select 'bench', 'mon-' || m, 'bench', 'production', 'monitor ' || lpad(m::text, 5, '0'), '1.0',
      jsonb_build_object('frequency', jsonb_build_object('every', 1, 'unit', 'MINUTE')), now()
    from generate_series(1, ${monitors}) m`.execute(db);
  const oldest = new Date(lastHour.getTime() - days * 24 * HOUR_MS);
  for (let from = oldest; from < recentFrom;) {
    const hours = Math.min(24, (recentFrom.getTime() - from.getTime()) / HOUR_MS);
    await seedHours(db, from, hours);
    from = new Date(from.getTime() + hours * HOUR_MS);
    process.stdout.write(`seeded hours to ${from.toISOString()}\n`);
  }
  for (const edgeDays of [7, 30].filter((d) => d <= days))
    await seedMinutes(db, new Date(lastHour.getTime() - edgeDays * 24 * HOUR_MS), 60, false);
  const recentMinutes = Math.floor((now.getTime() - recentFrom.getTime()) / 60_000) + 1;
  for (let k = 0; k < recentMinutes; k += 360) {
    await seedMinutes(
      db,
      new Date(recentFrom.getTime() + k * 60_000),
      Math.min(360, recentMinutes - k),
      true,
    );
    process.stdout.write(`seeded runs from ${new Date(recentFrom.getTime() + k * 60_000).toISOString()}\n`);
  }
  await refreshHourRollups(db, sql`r.minute >= ${recentFrom}`);
  // Every day row from its hours, as the hook keeps them.
  await refreshDayRollups(db, sql`h.organization_id = 'bench'`);
  // Each monitor's latest runs from the runs just inserted: migration 0008's backfill, run again.
  await monitorLatestRuns.down(db as unknown as Kysely<unknown>);
  await monitorLatestRuns.up(db as unknown as Kysely<unknown>);
  await sql`analyze`.execute(db);
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

const services = await startTestServices();
try {
  const { db } = openDatabase({ url: services.databaseUrl, dataDir: '/nonexistent' });
  await migrateToLatest(db);
  const seedStart = performance.now();
  const seeded = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organization_id', '=', 'bench')
    .executeTakeFirstOrThrow();
  if (values.reuse && Number(seeded.count) === monitors)
    process.stdout.write(`reusing the ${monitors} seeded monitors\n`);
  else await seed(db);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const key = generateApiKey();
  const cipher = createCredentialCipher(generateCredentialKey());
  /** A hub on the bench clock; `fleetMaxAgePercent` 0 computes the fleet figures on every request. */
  const listen = async (fleetMaxAgePercent?: number) => {
    const app = createApp({
      db,
      log: pino({ level: 'silent' }),
      verifier: createApiKeyVerifier([{ organizationId: 'bench', role: 'viewer', sha256: hashApiKey(key) }]),
      cipher,
      secrets: createLocalSecretStore({ db, cipher }),
      runQueue: createInProcessRunQueue({ log: pino({ level: 'silent' }) }),
      readiness: [],
      clock: { now: () => now },
      ...(fleetMaxAgePercent === undefined ? {} : { metricsFleetMaxAgePercent: fleetMaxAgePercent }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const computing = await listen(0);
  const served = await listen();
  const time = async (base: string, url: string) => {
    const started = performance.now();
    const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - started;
  };
  const summary = (times: number[]) => {
    times.sort((a, b) => a - b);
    return `${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.95).toFixed(1)}`;
  };
  const lines = [
    `${monitors} monitors x ${days} days of 1-minute runs (${monitors * days * 1440} runs in rollups), seeded in ${seedSeconds.toFixed(0)} s`,
    '',
    'computed: every request computes (METRICS_FLEET_MAX_AGE_PERCENT=0); served: the default, after the first request',
    '',
    '| endpoint | period | computed p50 ms | computed p95 ms | served p50 ms | served p95 ms |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const path of [
    '/metrics/monitors/mon-1',
    '/metrics/monitors?sort=p95_duration_ms',
    '/metrics/summary',
  ])
    for (const period of ['1h', '6h', '24h', '7d', '30d']) {
      const url = `${path}${path.includes('?') ? '&' : '?'}period=${period}`;
      const computed: number[] = [];
      for (let i = 0; i < samples; i += 1) computed.push(await time(computing.base, url));
      await time(served.base, url);
      const fromSnapshot: number[] = [];
      for (let i = 0; i < samples; i += 1) fromSnapshot.push(await time(served.base, url));
      lines.push(`| \`${path}\` | ${period} | ${summary(computed)} | ${summary(fromSnapshot)} |`);
    }
  process.stdout.write(lines.join('\n') + '\n');
  if (values.explain) {
    // The fleet's 30-day read: whole hours through the hourly index, edge minutes through the minute index.
    const start = new Date(now.getTime() - 30 * 24 * HOUR_MS);
    const scope = {
      organizationId: 'bench',
      fromMinute: new Date(Math.floor(start.getTime() / 60_000) * 60_000),
    };
    const source = rollupSource({ ...scope, periodStart: start, toMinute: now });
    const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, costs off)
      select r.monitor_id, sum(r.run_count) from ${source} r group by r.monitor_id`.execute(db);
    process.stdout.write(plan.rows.map((row) => row['QUERY PLAN']).join('\n') + '\n');
  }
  computing.server.close();
  served.server.close();
  await db.destroy();
} finally {
  await services.stop();
}
