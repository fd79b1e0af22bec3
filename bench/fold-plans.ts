// The fold's batch at scale (docs/adr/0083-fold-hours-instead-of-candidate-entries.md): its plan, time and buffers
// on `--monitors` monitors with a run a minute for `--hours` past hours, compacted but for a failure every 50th
// run, each batch's statement explained (analyze, buffers) in a transaction rolled back. Runs with the code and
// schema of the checkout it is started from. `npx tsx bench/fold-plans.ts --monitors 2000 --hours 3`
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { z } from 'zod';
import type { Database } from '../hub/src/db/tables.js';
import { migrateToLatest } from '../hub/src/db/migrator.js';
import { foldCompactedRuns } from '../hub/src/runs/run-fold.repository.js';
import { runFoldPartitions, runPartitions } from '../hub/src/runs/run-partitions.js';
import { startTestServices } from '../test/harness/global-setup.js';

// Refused, not clamped, beyond a day of 10,000 monitors.
const { monitors, hours } = z
  .object({
    monitors: z.coerce.number().int().min(1).max(10_000),
    hours: z.coerce.number().int().min(1).max(24),
  })
  .parse(
    parseArgs({
      options: { monitors: { type: 'string', default: '2000' }, hours: { type: 'string', default: '3' } },
    }).values,
  );
const say = (line: string) => process.stdout.write(`${line}\n`);
const HOUR_MS = 3_600_000;
// Hours that ended a day and more ago, inside yesterday's or the day before's partitions (made by migrate).
const end = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 26 * HOUR_MS);
const start = new Date(end.getTime() - hours * HOUR_MS);

const services = await startTestServices();
const pool = new pg.Pool({ connectionString: services.databaseUrl, max: 2 });
// The test services' PostgreSQL stops with idle connections of the pool: their error is the end, not a failure.
pool.on('error', () => undefined);
let captured: CompiledQuery | undefined;
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (event) => {
    if (event.level === 'query' && /^\s*with oldest/.test(event.query.sql)) captured = event.query;
  },
});
try {
  await migrateToLatest(db);
  await runPartitions.ensure(db, start);
  await runFoldPartitions.ensure(db, start);
  await sql`insert into monitors (organization_id, id, project, environment, name, schema_version, definition,
      updated_at)
    select 'acme', 'mon-' || m, 'shop', 'production', 'mon-' || m, '1.0', '{}'::jsonb, now()
    from generate_series(1, ${monitors}) m`.execute(db);
  await sql`insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
      triggered_by, schedule_slot, started_at, completed_at, duration_ms, success, steps, details_compacted,
      created_at)
    select 'acme', 'run_' || gen_random_uuid(), 'mon-' || m, 'grp_' || gen_random_uuid(), 'default',
      'production', case when ok then 'completed' else 'failed' end, 'schedule',
      (extract(epoch from t) * 1000)::bigint::text, t, t, 100, ok, '[["get","HTTP_REQUEST","passed",12]]'::jsonb,
      ok, t
    from generate_series(1, ${monitors}) m, generate_series(0, ${hours * 60 - 1}) i,
      lateral (select ${start}::timestamptz + i * interval '1 minute' as t, (m + i) % 50 <> 0 as ok) s`.execute(
    db,
  );
  const foldHours = await sql<{ t: string | null }>`select to_regclass('run_fold_hours')::text as t`.execute(
    db,
  );
  if (foldHours.rows[0]?.t !== null)
    await sql`insert into run_fold_hours (hour, organization_id, monitor_id, location)
      select distinct date_bin('1 hour', created_at, timestamptz 'epoch'), organization_id, monitor_id, location
      from runs where details_compacted`.execute(db);
  // The hours since, not foldable yet, as the table holds them at fleet size: RUN_FOLD_AFTER_MINUTES' day of them.
  if (foldHours.rows[0]?.t !== null)
    await sql`insert into run_fold_hours (hour, organization_id, monitor_id, location)
      select h, 'acme', 'mon-' || m, 'default' from generate_series(1, ${monitors}) m,
        generate_series(${end}::timestamptz, now(), interval '1 hour') h`.execute(db);
  await sql`vacuum analyze runs`.execute(db);
  if (foldHours.rows[0]?.t !== null) await sql`vacuum analyze run_fold_hours`.execute(db);
  say(
    `${monitors} monitors, ${monitors * hours * 60} runs in ${hours} hours; run_fold_hours: ${foldHours.rows[0]?.t ?? 'none'}`,
  );
  say('| batch | execution | runs folded | shared buffers hit+read | scans |');
  say('|---|---|---|---|---|');
  const before = new Date(end.getTime());
  for (let batch = 1; batch <= 3; batch++) {
    captured = undefined;
    const result = await foldCompactedRuns(db, { before, monitors: 50 });
    if (captured === undefined) throw new Error('the fold statement was not seen');
    const query: CompiledQuery = captured;
    // The same statement again, explained, in a transaction rolled back: the batch above already folded its runs,
    // so this is the next batch's plan; what it folds is undone.
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) ${query.sql}`,
        query.parameters as unknown[],
      );
      await client.query('rollback');
      const text = rows.map((row) => row['QUERY PLAN']).join('\n');
      if (process.env.FOLD_PLAN_FILE !== undefined && batch === 1)
        writeFileSync(process.env.FOLD_PLAN_FILE, text);
      const ms = /Execution Time: ([\d.]+)/.exec(text)?.[1] ?? '?';
      const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(text);
      const scans = [
        ...new Set(
          text.match(/(?:Seq|Index|Index Only|Bitmap Heap) Scan(?: Backward)?(?: using \S+)? on \S+/g),
        ),
      ];
      say(
        `| ${batch} | ${ms} ms | ${result.runs} | ${buffers?.[1] ?? '?'}+${buffers?.[2] ?? 0} | ${scans.join(' / ')} |`,
      );
    } finally {
      client.release();
    }
  }
} finally {
  await db.destroy();
  await services.stop();
}
