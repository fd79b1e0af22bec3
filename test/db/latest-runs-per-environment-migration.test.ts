import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { migrateTo, migrateToLatest } from '../../hub/src/db/migrator.js';
import { databaseEngines } from '../harness/engines.js';
import { insertMonitorRow } from '../runs/run-rows.js';

const BEFORE = '0023-narrower-compaction-candidates';
const t = (minute: number) => new Date(Date.UTC(2026, 10, 29, 12, minute));

// mon-1 ran in production, then (its environment changed) failed in staging; the '' row is what the upsert of
// both environments' runs left: the newest run (staging's), production's success and staging's failure.
const row = (
  environment: string,
  run: number,
  status: 'completed' | 'failed',
  success?: number,
  failure?: number,
) => ({
  organization_id: 'acme',
  monitor_id: 'mon-1',
  environment,
  last_run_id: `run_${run}`,
  last_run_status: status,
  last_run_success: status === 'completed',
  last_run_at: t(run),
  last_run_duration_ms: 100 + run,
  last_run_created_at: t(run),
  last_success_at: success === undefined ? null : t(success),
  last_success_created_at: success === undefined ? null : t(success),
  last_failure_at: failure === undefined ? null : t(failure),
  last_failure_created_at: failure === undefined ? null : t(failure),
});
const ROWS = [
  row('', 3, 'failed', 2, 3),
  row('production', 2, 'completed', 2, 0),
  row('staging', 3, 'failed', undefined, 3),
];

const latestRows = (db: Db) =>
  db.selectFrom('monitor_latest_runs').selectAll().orderBy('monitor_id').orderBy('environment').execute();

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** Every scan of the latest runs' table in the plan of `query`: its type, index condition and filter. */
async function scansOf(db: Db, query: ReturnType<typeof sql>): Promise<string[]> {
  await sql`set enable_seqscan = off`.execute(db);
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (format json) ${query}`.execute(db);
  await sql`reset enable_seqscan`.execute(db);
  const scans: string[] = [];
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] === 'monitor_environment_latest_runs')
      scans.push(`${node['Node Type']}: ${node['Index Cond'] ?? ''} ${node.Filter ?? ''}`);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((JSON.parse(JSON.stringify(rows[0]!['QUERY PLAN'])) as { Plan: PlanNode }[])[0]!.Plan);
  return scans;
}

describe.each(databaseEngines)('migration 0024 (latest runs per environment) on $name', (engine) => {
  it("keeps every environment's and the '' latest runs, down to 0023 and up again", async () => {
    const { db, dispose } = await engine.open({ migrate: false });
    try {
      await migrateTo(db, BEFORE);
      await insertMonitorRow(db);
      await db.insertInto('monitor_latest_runs').values(ROWS).execute();
      const before = await latestRows(db);

      await migrateToLatest(db);
      expect(await latestRows(db)).toEqual(before);
      const stored = await db.selectFrom('monitor_environment_latest_runs').select('environment').execute();
      expect(stored.map((r) => r.environment).sort()).toEqual(['production', 'staging']);

      await migrateTo(db, BEFORE);
      expect(await latestRows(db)).toEqual(before);
    } finally {
      await dispose();
    }
  }, 180_000);

  it("reads a page of monitors' '' rows through the primary key, by monitor", async () => {
    const { db, dispose } = await engine.open({ migrate: true });
    try {
      // A fleet's worth of rows, so the planner weighs the scans as it would in production.
      const ids = Array.from({ length: 300 }, (_, i) => `mon-${i}`);
      for (const id of ids) await insertMonitorRow(db, id);
      const stored = ids.flatMap((id) =>
        ['production', 'staging'].map((e) => ({ ...row(e, 2, 'completed', 2), monitor_id: id })),
      );
      await db.insertInto('monitor_environment_latest_runs').values(stored).execute();
      await sql`analyze monitor_environment_latest_runs`.execute(db);
      const page = sql`select * from monitor_latest_runs
        where organization_id = 'acme' and environment = '' and monitor_id in ('mon-1', 'mon-2')`;
      // As consecutiveFailures (metrics/metric-runs.repository.ts) joins them.
      const joined = sql`select m.id, l.last_success_created_at from unnest(${['mon-1', 'mon-2']}::text[]) as m(id)
        left join monitor_latest_runs l on l.organization_id = 'acme' and l.monitor_id = m.id
          and l.monitor_id = any(${['mon-1', 'mon-2']}::text[]) and l.environment = ''`;
      for (const scans of [await scansOf(db, page), await scansOf(db, joined)]) {
        expect(scans.length).toBeGreaterThan(0);
        // The page's monitors reach every scan as an index condition: no scan reads the organization's other rows.
        expect(scans).toHaveLength(4);
        for (const scan of scans) expect(scan).toMatch(/^Index (Only )?Scan: \(.*monitor_id = /);
      }
    } finally {
      await dispose();
    }
  }, 180_000);
});
