// The slot auditor's cost (`npx tsx bench/slot-audit.ts --monitors 2000,10000`): N monitors every 10 s at one
// location, 10 minutes of their slots seeded as run rows with 5% missing, then the auditor's passes over 10 s
// windows of that time, as the scheduler runs them. Prints each size's pass duration (p50, max), the slots
// expected and found lost per pass, and the sequential scans the passes made of `runs` (0: every slot is read
// by its key). A shared, busy machine makes the durations noisy: quote them as such.
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { pino } from 'pino';
import { locationsSetting } from '../hub/src/config/locations.js';
import { loadSettings } from '../hub/src/config/settings.js';
import { textArray, timestampArray } from '../hub/src/db/array-params.js';
import type { Db } from '../hub/src/db/database.js';
import { auditSlots, slotSettleMs } from '../hub/src/ledger/slot-auditor.js';
import { latestSlotMs, scheduleId, scheduleOffsetMs } from '../hub/src/scheduling/schedules.js';
import { openComponents } from '../hub/src/server/components.js';
import { startTestServices } from '../test/harness/global-setup.js';

const { values } = parseArgs({
  options: { monitors: { type: 'string', default: '2000,10000' }, passes: { type: 'string', default: '20' } },
});
const sizes = values.monitors.split(',').map(Number);
const passes = Number(values.passes);
const say = (line: string) => process.stdout.write(`${line}\n`);
const ORGANIZATION = 'bench';
const EVERY_MS = 10_000;
const SEEDED_MS = 10 * 60_000;
const settings = {
  LOCATIONS: locationsSetting.parse('default:worker'),
  RUN_TIMEOUT_MS: 120_000,
  RUN_RECORD_RETRY_SECONDS: 600,
  RUN_RETENTION_DAYS: 30,
};

async function seed(db: Db, monitorCount: number, endMs: number): Promise<void> {
  await sql`truncate monitors cascade`.execute(db);
  await sql`truncate slot_gap_totals, slot_audit_cursors`.execute(db);
  const ids = Array.from({ length: monitorCount }, (_, i) => `m-${String(i).padStart(6, '0')}`);
  const definition = JSON.stringify({ frequency: { every: 10 / 60, unit: 'MINUTE' } });
  await sql`insert into monitors (organization_id, id, project, environment, name, schema_version, definition,
      created_at, updated_at)
    select ${ORGANIZATION}, id, 'bench', 'production', id, '1.0', ${definition}::jsonb, now() - interval '2 hours',
      now() - interval '2 hours'
    from unnest(${textArray(ids)}) as u(id)`.execute(db);
  for (let start = 0; start < ids.length; start += 500) {
    const monitors: string[] = [];
    const slots: string[] = [];
    for (const id of ids.slice(start, start + 500)) {
      const offsetMs = scheduleOffsetMs(scheduleId(ORGANIZATION, id, 'default'), EVERY_MS);
      const first = latestSlotMs({ everyMs: EVERY_MS, offsetMs }, endMs - SEEDED_MS) + EVERY_MS;
      for (let slot = first; slot <= endMs; slot += EVERY_MS) {
        if (Math.random() < 0.05) continue;
        monitors.push(id);
        slots.push(String(slot));
      }
    }
    await sql`insert into runs (organization_id, id, monitor_id, execution_group_id, location, environment, status,
        triggered_by, schedule_slot, success, errors, created_at)
      select ${ORGANIZATION}, m || '-' || s, m, 'g', 'default', 'production', 'completed', 'schedule', s, true,
        '[]'::jsonb, c
      from unnest(${textArray(monitors)}, ${textArray(slots)},
        ${timestampArray(slots.map((s) => new Date(Number(s))))}) as u(m, s, c)`.execute(db);
  }
  await sql`analyze runs`.execute(db);
  await sql`analyze monitors`.execute(db);
}

const runSeqScans = async (db: Db) => {
  const { rows } = await sql<{ scans: string }>`
    select coalesce(sum(seq_scan), 0) as scans from pg_stat_user_tables where relname like 'runs%'`.execute(
    db,
  );
  return Number(rows[0]?.scans ?? 0);
};

const services = await startTestServices();
try {
  say(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB`,
  );
  const loaded = loadSettings(
    { DATABASE_URL: services.databaseUrl, REDIS_URL: services.redisUrl, SECRETS_KEY: 'ab'.repeat(32) },
    'admin',
  );
  const components = await openComponents(loaded, pino({ level: 'warn' }), {
    migrate: true,
    secretsKey: loaded.SECRETS_KEY ?? '',
  });
  const { db } = components;
  try {
    say(
      '| monitors | pass p50 ms | pass max ms | slots expected per pass | lost per pass | seq scans of runs |',
    );
    say('|---|---|---|---|---|---|');
    for (const size of sizes) {
      const endMs = Math.floor(Date.now() / EVERY_MS) * EVERY_MS - 60_000;
      await seed(db, size, endMs);
      let nowMs = endMs - SEEDED_MS + slotSettleMs(settings);
      const clock = { now: () => new Date(nowMs) };
      await auditSlots({ db, clock, settings }); // the cursor starts at the seeded time's start
      const durations: number[] = [];
      let expected = 0;
      let lost = 0;
      // Statistics are flushed to the views at the end of each transaction, possibly later: a pause before reading.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const scansBefore = await runSeqScans(db);
      for (let pass = 0; pass < passes; pass += 1) {
        nowMs += EVERY_MS;
        const started = performance.now();
        const outcome = await auditSlots({ db, clock, settings });
        durations.push(performance.now() - started);
        if (outcome.status !== 'audited') throw new Error(`pass ${pass}: ${outcome.status}`);
        expected += outcome.expected;
        lost += outcome.lost;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const scans = (await runSeqScans(db)) - scansBefore;
      durations.sort((a, b) => a - b);
      const ms = (value: number | undefined) => (value ?? Number.NaN).toFixed(0);
      say(
        `| ${size} | ${ms(durations[Math.floor(durations.length / 2)])} | ${ms(durations.at(-1))} | ` +
          `${(expected / passes).toFixed(0)} | ${(lost / passes).toFixed(0)} | ${scans} |`,
      );
    }
  } finally {
    await components.close();
  }
} finally {
  await services.stop();
}
