// Whether two per-run index entries can go (docs/adr/0078-latest-runs-updated-first.md): the plans and times of the
// reads that use `runs_by_created` and `run_rollups_minute_by_org_minute`, with each index and, in a transaction
// rolled back, without it. One organization's day: `--monitors` monitors, a run and a minute row each minute for
// `--minutes` minutes (bounded by both). `npm run bench:index-plans -- --monitors 2000 --minutes 360`
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { z } from 'zod';
import { openDatabase, type Db } from '../hub/src/db/database.js';
import { migrateToLatest } from '../hub/src/db/migrator.js';
import { startTestServices } from '../test/harness/global-setup.js';

// Refused, not clamped, beyond one day of 10,000 monitors.
const { monitors, minutes } = z
  .object({
    monitors: z.coerce.number().int().min(1).max(10_000),
    minutes: z.coerce.number().int().min(1).max(1_440),
  })
  .parse(
    parseArgs({
      options: { monitors: { type: 'string', default: '2000' }, minutes: { type: 'string', default: '360' } },
    }).values,
  );
const say = (line: string) => process.stdout.write(`${line}\n`);

// Midnight UTC today plus `minutes`: inside today's partitions of both tables.
const DAY_MS = 86_400_000;
const start = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const end = new Date(start.getTime() + minutes * 60_000);

async function seed(db: Db): Promise<void> {
  await sql`insert into monitors (organization_id, id, project, environment, name, schema_version, definition,
      updated_at)
    select 'acme', 'mon-' || m, 'shop', 'production', 'mon-' || m, '1.0', '{}'::jsonb, now()
    from generate_series(1, ${monitors}) m`.execute(db);
  await sql`insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
      triggered_by, schedule_slot, started_at, completed_at, duration_ms, success, created_at)
    select 'acme', 'run_' || m || '_' || i, 'mon-' || m, 'grp', 'default', 'production', 'completed', 'schedule',
      (extract(epoch from t) * 1000)::bigint::text, t, t, 100, true, t
    from generate_series(1, ${monitors}) m, generate_series(0, ${minutes - 1}) i,
      lateral (select ${start}::timestamptz + i * interval '1 minute' as t) s`.execute(db);
  await sql`insert into run_rollups_minute (organization_id, monitor_id, minute, location, environment, run_count,
      success_count, failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms, histogram,
      error_classes, last_started_at, last_success)
    select 'acme', 'mon-' || m, t, 'default', 'production', 1, 1, 0, 1, 100, 100, 100, '{}'::jsonb, '{}'::jsonb, t,
      true
    from generate_series(1, ${monitors}) m, generate_series(0, ${minutes - 1}) i,
      lateral (select ${start}::timestamptz + i * interval '1 minute' as t) s`.execute(db);
  await sql`vacuum analyze runs`.execute(db);
  await sql`vacuum analyze run_rollups_minute`.execute(db);
}

/** The plan's top line, its execution time and buffers read: best of three (the first warms the cache). */
async function plan(db: Db, query: ReturnType<typeof sql>): Promise<string> {
  let best: { ms: number; line: string } | undefined;
  for (let i = 0; i < 3; i++) {
    const { rows } = await sql<{
      'QUERY PLAN': string;
    }>`explain (analyze, buffers, format text) ${query}`.execute(db);
    const lines = rows.map((row) => row['QUERY PLAN']);
    const ms = Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1] ?? NaN);
    const scans = lines.flatMap(
      (line) =>
        /(?:Seq|Index|Index Only|Bitmap Heap|Bitmap Index) Scan(?: Backward)?(?: using \S+)? on \S+|Sort\b/.exec(
          line,
        ) ?? [],
    );
    const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(lines.join('\n'));
    const line = `${ms.toFixed(1)} ms; ${[...new Set(scans)].join(' / ')}; buffers ${buffers?.[1] ?? '?'}+${buffers?.[2] ?? 0}`;
    if (best === undefined || ms < best.ms) best = { ms, line };
  }
  return best?.line ?? '';
}

/** The plan with the index, then without it (dropped in a transaction that is rolled back). */
async function withAndWithout(
  db: Db,
  index: string,
  name: string,
  query: ReturnType<typeof sql>,
): Promise<void> {
  say(`| ${name} | with \`${index}\` | ${await plan(db, query)} |`);
  await db
    .transaction()
    .execute(async (tx) => {
      await sql`drop index ${sql.table(index)}`.execute(tx);
      say(`| ${name} | without | ${await plan(tx, query)} |`);
      throw new Error('rollback');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error) || error.message !== 'rollback') throw error;
    });
}

const services = await startTestServices();
const { db } = openDatabase({ url: services.databaseUrl, dataDir: '/nonexistent' });
try {
  await migrateToLatest(db);
  await seed(db);
  say(`${monitors} monitors, ${monitors * minutes} runs and minute rows (${minutes} minutes of one day)`);
  say('| read | index | best of three: execution, scans, shared buffers hit+read |');
  say('|---|---|---|');
  const hourAgo = new Date(end.getTime() - 65 * 60_000);
  // GET /runs/ (listRuns): an organization's runs newest first, first page.
  await withAndWithout(
    db,
    'runs_by_created',
    'GET /runs/?limit=100',
    sql`select r.*, m.name from runs r join monitors m on m.organization_id = r.organization_id and m.id = r.monitor_id
      where r.organization_id = 'acme' order by r.created_at desc, r.id desc limit 100`,
  );
  // The organization's recent minutes (listHourCounts' current hours, the fleet metrics' minute segment).
  await withAndWithout(
    db,
    'run_rollups_minute_by_org_minute',
    "an organization's last 65 minutes",
    sql`select monitor_id, sum(run_count) from run_rollups_minute
      where organization_id = 'acme' and minute >= ${hourAgo} and minute < ${end} group by monitor_id`,
  );
  // One monitor's last 65 minutes: the primary key's prefix answers it either way.
  await withAndWithout(
    db,
    'run_rollups_minute_by_org_minute',
    "a monitor's last 65 minutes",
    sql`select sum(run_count) from run_rollups_minute
      where organization_id = 'acme' and monitor_id = 'mon-7' and minute >= ${hourAgo} and minute < ${end}`,
  );
} finally {
  await db.destroy();
  await services.stop();
}
