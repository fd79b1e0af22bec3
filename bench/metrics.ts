// Latency of the metrics endpoints over months of runs (`npx tsx bench/metrics.ts [--monitors N] [--days D]`).
// Seeds N monitors x D days of one-minute runs (and their per-minute rollups, as the rollup hook would have
// written them) into a real PostgreSQL with generate_series, then times each endpoint for each period.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createApiKeyVerifier, generateApiKey, hashApiKey } from '../hub/src/auth/api-keys.js';
import { createCredentialCipher, generateCredentialKey } from '../hub/src/crypto/credential-cipher.js';
import { openDatabase, type Db } from '../hub/src/db/database.js';
import { migrateToLatest } from '../hub/src/db/migrator.js';
import { createApp } from '../hub/src/http/app.js';
import { HISTOGRAM_GROWTH } from '../hub/src/metrics/duration-histogram.js';
import { createInProcessRunQueue } from '../hub/src/scheduling/in-process-run-queue.js';
import { createLocalSecretStore } from '../hub/src/secrets/local-secret-store.js';
import { startTestServices } from '../test/harness/global-setup.js';

const { values } = parseArgs({
  options: {
    monitors: { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    samples: { type: 'string', default: '20' },
  },
});
const monitors = Number(values.monitors);
const days = Number(values.days);
const samples = Number(values.samples);
const now = new Date('2026-01-31T00:00:00Z');

/** One day of runs per statement keeps each transaction small; 2% of runs fail, durations 50-450 ms. */
async function seed(db: Db): Promise<void> {
  await sql`
    insert into monitors (organization_id, id, project, environment, name, schema_version, definition, updated_at)
    select 'bench', 'mon-' || m, 'bench', 'production', 'monitor ' || lpad(m::text, 5, '0'), '1.0',
      jsonb_build_object('frequency', jsonb_build_object('every', 1, 'unit', 'MINUTE')), now()
    from generate_series(1, ${monitors}) m`.execute(db);
  for (let day = days; day >= 1; day -= 1) {
    const from = new Date(now.getTime() - day * 86_400_000);
    await sql`
      with generated as (
        select m, ${from}::timestamptz + k * interval '1 minute' as at, random() > 0.02 as ok,
          50 + random() * 400 as duration
        from generate_series(1, ${monitors}) m cross join generate_series(0, 1439) k
      ), runs_inserted as (
        insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
          triggered_by, started_at, completed_at, duration_ms, success, errors, created_at)
        select 'bench', 'run-' || m || '-' || extract(epoch from at)::bigint, 'mon-' || m, 'grp', 'default',
          'production', case when ok then 'completed' else 'failed' end, 'schedule', at, at, duration, ok,
          case when ok then '[]'::jsonb else '["get: connect ECONNREFUSED"]'::jsonb end, at
        from generated
      )
      insert into run_rollups_minute (organization_id, monitor_id, minute, location, environment, run_count,
        success_count, failure_count, duration_count, duration_sum_ms, duration_min_ms, duration_max_ms,
        histogram, error_classes, last_started_at, last_success)
      select 'bench', 'mon-' || m, at, 'default', 'production', 1, ok::int, (not ok)::int, 1, duration, duration,
        duration, jsonb_build_object((floor(ln(duration) / ln(${HISTOGRAM_GROWTH})) + 1)::int::text, 1),
        case when ok then '{}'::jsonb else '{"connection": 1}'::jsonb end, at, ok
      from generated`.execute(db);
    process.stdout.write(`seeded day -${day}\n`);
  }
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
  await seed(db);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const key = generateApiKey();
  const cipher = createCredentialCipher(generateCredentialKey());
  const app = createApp({
    db,
    log: pino({ level: 'silent' }),
    verifier: createApiKeyVerifier([{ organizationId: 'bench', role: 'viewer', sha256: hashApiKey(key) }]),
    cipher,
    secrets: createLocalSecretStore({ db, cipher }),
    runQueue: createInProcessRunQueue(),
    readiness: [],
    clock: { now: () => now },
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const lines = [
    `${monitors} monitors x ${days} days of 1-minute runs (${monitors * days * 1440} runs), seeded in ${seedSeconds.toFixed(0)} s`,
    '| endpoint | period | p50 ms | p95 ms |',
    '| --- | --- | --- | --- |',
  ];
  for (const path of [
    '/metrics/monitors/mon-1',
    '/metrics/monitors?sort=p95_duration_ms',
    '/metrics/summary',
  ])
    for (const period of ['1h', '6h', '24h', '7d', '30d']) {
      const times: number[] = [];
      for (let i = 0; i < samples; i += 1) {
        const started = performance.now();
        const res = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}period=${period}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      lines.push(
        `| \`${path}\` | ${period} | ${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.95).toFixed(1)} |`,
      );
    }
  process.stdout.write(lines.join('\n') + '\n');
  server.close();
  await db.destroy();
} finally {
  await services.stop();
}
