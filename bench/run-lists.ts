// The list benchmark (`npm run bench:lists -- --runs 10000000`): an organization with N runs spread over 30 days
// (1,000 monitors, 2% failed, one step each), seeded in SQL into the partitioned `runs` table with day and hour
// rollups to match and 100,000 notification events; then the real `meerkat hub` process answers each list
// endpoint sequentially, and the latencies (p50, p95, p99) are printed with the database's size per run.
import { createHash } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadSettings } from '../hub/src/config/settings.js';
import { runPartitions } from '../hub/src/runs/run-partitions.js';
import { openComponents } from '../hub/src/server/components.js';
import { startTestServices } from '../test/harness/global-setup.js';
import { startMeerkatProcesses } from '../test/harness/processes.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000000' },
    monitors: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '300' },
  },
});
const runCount = Number(values.runs);
const monitorCount = Number(values.monitors);
const requestCount = Number(values.requests);
const say = (line: string) => process.stdout.write(`${line}\n`);
const ORGANIZATION = 'bench';
const API_KEY = 'mk_bench_lists_key_0123456789abcdef';
const DAYS = 30;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

const services = await startTestServices();
try {
  say(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  const settings = loadSettings(
    {
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      SECRETS_KEY: 'ab'.repeat(32),
      LOG_LEVEL: 'warn',
    },
    'admin',
  );
  const components = await openComponents(settings, pino({ level: 'warn' }), {
    migrate: true,
    secretsKey: settings.SECRETS_KEY ?? '',
  });
  const { db } = components;
  const seeded = Date.now();
  const definition = JSON.stringify({
    project: 'bench',
    version: '1.0',
    frequency: { every: 1, unit: 'MINUTE' },
    nodes: [{ id: 'get', type: 'HTTP_REQUEST', method: 'GET', base: 'http://127.0.0.1:9', path: '/ok' }],
    edges: [],
  });
  await sql`insert into monitors (organization_id, id, project, environment, name, schema_version, definition,
      updated_at)
    select ${ORGANIZATION}, 'mon-' || i, 'bench', 'production', 'monitor-' || i, '1.0', ${definition}::jsonb, now()
    from generate_series(0, ${monitorCount - 1}::int) i`.execute(db);
  // Partitions for the 30 days the runs span (the migration made today's and the next week's).
  for (let day = DAYS; day >= 0; day -= 1)
    await runPartitions.ensure(db, new Date(Date.now() - day * 86_400_000));
  const step = JSON.stringify([
    {
      nodeId: 'get',
      type: 'HTTP_REQUEST',
      success: true,
      request: { method: 'GET', url: 'http://127.0.0.1:9/ok', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok"}' },
      timings: { dnsMs: 0, connectMs: 0.4, tlsMs: 0, firstByteMs: 2.1, transferMs: 0.2, totalMs: 2.9 },
    },
  ]);
  const spanSeconds = DAYS * 86_400;
  for (let done = 0; done < runCount; done += 1_000_000) {
    const batch = Math.min(1_000_000, runCount - done);
    await sql`insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
        triggered_by, schedule_slot, started_at, completed_at, duration_ms, success, errors, steps, created_at)
      select ${ORGANIZATION}, 'run_' || n, 'mon-' || (n % ${monitorCount}::int), 'grp_' || n, 'default', 'production',
        case when n % 50 = 0 then 'failed' else 'completed' end, 'schedule', (extract(epoch from at) * 1000)::bigint,
        at, at + interval '3 milliseconds', 3, n % 50 <> 0,
        case when n % 50 = 0 then '["status was 500"]'::jsonb else '[]'::jsonb end, ${step}::jsonb, at
      from generate_series(${done}::bigint, ${done + batch - 1}::bigint) n,
        lateral (select now() - make_interval(secs => ${spanSeconds}::float8 * (1 - n::float8 / ${runCount}::float8))) t(at)`.execute(
      db,
    );
    say(`seeded ${done + batch} runs (${((Date.now() - seeded) / 1000).toFixed(0)} s)`);
  }
  for (const [table, column, width] of [
    ['run_rollups_day', 'day', '1 day'],
    ['run_rollups_hour', 'hour', '1 hour'],
  ] as const) {
    await sql`insert into ${sql.table(table)} (organization_id, monitor_id, ${sql.ref(column)}, environment,
        run_count, success_count, failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms,
        first_minute, up_seconds, last_started_at, last_success)
      select organization_id, monitor_id, date_bin(${sql.raw(`interval '${width}'`)}, created_at, timestamptz 'epoch'),
        e.environment, count(*), count(*) filter (where success), count(*) filter (where not success), count(*),
        sum(duration_ms), min(duration_ms), max(duration_ms), min(created_at), 0, max(created_at), bool_and(success)
      from runs cross join (values (''), ('production')) e(environment) group by 1, 2, 3, 4`.execute(db);
  }
  await sql`insert into notification_events (organization_id, id, monitor_id, run_id, trigger_reason, created_at)
    select ${ORGANIZATION}, 'evt_' || n, 'mon-' || (n % ${monitorCount}::int), 'run_' || (n * 50), 'failure',
      now() - make_interval(secs => n * 25.0) from generate_series(0, 99999) n`.execute(db);
  // As autovacuum leaves an insert-only table: statistics and the visibility map (index-only scans) current.
  await sql`vacuum analyze`.execute(db);
  say(`seeded in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);

  const { rows: sizes } = await sql<{ bytes: string }>`
    select sum(pg_total_relation_size(c.oid))::text as bytes from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'runs'::regclass`.execute(db);
  say(
    `runs: ${runCount} rows, ${(Number(sizes[0]?.bytes) / runCount).toFixed(0)} bytes per run with indexes`,
  );
  await components.close();

  const sha = createHash('sha256').update(API_KEY).digest('hex');
  const [hub] = await startMeerkatProcesses(
    {
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      SECRETS_KEY: 'ab'.repeat(32),
      AUTH_API_KEYS: `${ORGANIZATION}:viewer:${sha}`,
      API_RATE_LIMIT_PER_SECOND: '0',
    },
    [{ name: 'hub', args: ['hub'], ready: /hub API listening/ }],
  );
  if (hub === undefined) throw new Error('the hub did not start');
  try {
    const paths = [
      '/runs/',
      '/runs/?limit=100',
      '/runs/?limit=100&page=50',
      '/runs/?limit=100&monitorId=mon-7',
      '/runs/?limit=100&status=failed',
      `/runs/run_${runCount - 1}`,
      '/monitor/?limit=100',
      '/metrics/monitors?period=30d&limit=100',
      '/metrics/monitors?period=24h&limit=100&sort=p95_duration_ms',
      '/notifications/events?limit=100',
    ];
    say('');
    say('| request | p50 | p95 | p99 | total in the answer |');
    say('|---|---|---|---|---|');
    for (const path of paths) {
      const times: number[] = [];
      let total = '';
      for (let i = 0; i < requestCount + 20; i += 1) {
        const started = process.hrtime.bigint();
        const response = await fetch(`${hub.url}${path}`, {
          headers: { authorization: `Bearer ${API_KEY}` },
        });
        const body = (await response.json()) as { total?: number; totalExact?: boolean };
        if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
        if (i >= 20) times.push(Number(process.hrtime.bigint() - started) / 1e6);
        total =
          body.total === undefined ? '' : `${body.total}${body.totalExact === false ? ' (estimated)' : ''}`;
      }
      times.sort((a, b) => a - b);
      const ms = (p: number) => `${percentile(times, p).toFixed(1)} ms`;
      say(`| GET ${path} | ${ms(50)} | ${ms(95)} | ${ms(99)} | ${total} |`);
    }
  } finally {
    await hub.process.stop();
  }
} finally {
  await services.stop();
}
