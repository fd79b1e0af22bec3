import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** Where a compaction sweep has got to: the last run it looked at, in (created_at, id) order. */
export interface CompactionCursor {
  createdAt: Date;
  id: string;
}

export interface CompactionBatch {
  /** Runs looked at: compacted, kept for good, or left for a later sweep; fewer than asked means the sweep is done. */
  examined: number;
  compacted: number;
  /** The last run looked at, where the next batch of the same sweep starts. */
  cursor: CompactionCursor | undefined;
}

/**
 * Compacts one batch of passing scheduled runs created before `before` and after `cursor` (docs/adr/0050): each
 * step keeps its node, type, status and duration; the request, response excerpt, timings, TLS facts and assertion
 * details go. A run stays whole when the run before it in its monitor and location did not pass (a folded run
 * passed, docs/adr/0061: a change of outcome, or its first run: marked so it is not looked at again), or when
 * fewer than `keepLatest` runs of its monitor and location are newer (left unmarked, so a later sweep compacts it
 * once newer runs came).
 */
export async function compactPassingRuns(
  db: Db,
  options: { before: Date; cursor: CompactionCursor | undefined; keepLatest: number; batch: number },
): Promise<CompactionBatch> {
  const { before, cursor, keepLatest, batch } = options;
  const after = cursor ?? { createdAt: new Date(0), id: '' };
  const { rows } = await sql<{
    organization_id: string;
    id: string;
    created_at: Date;
    outcome_change: boolean;
    latest: boolean;
  }>`
    select c.organization_id, c.id, c.created_at,
      coalesce((select previous.success from (
        (select p.created_at as at, p.success from runs p
          where p.organization_id = c.organization_id and p.monitor_id = c.monitor_id and p.location = c.location
            and p.created_at < c.created_at and p.status in ('completed', 'failed')
          order by p.created_at desc limit 1)
        union all
        (select f.hour + f.slots[1] * interval '1 millisecond', true from run_folds f
          where f.organization_id = c.organization_id and f.monitor_id = c.monitor_id and f.location = c.location
            and f.hour <= c.created_at and f.hour + f.slots[1] * interval '1 millisecond' < c.created_at
          order by f.hour desc, f.first_slot desc limit 1)) previous
        order by previous.at desc limit 1), false) is not true as outcome_change,
      (select count(*) from (select 1 from runs n
        where n.organization_id = c.organization_id and n.monitor_id = c.monitor_id and n.location = c.location
          and n.created_at > c.created_at limit ${keepLatest}) newer) < ${keepLatest} as latest
    from runs c
    where c.success and c.triggered_by = 'schedule' and c.details_compacted is null and c.created_at < ${before}
      and (c.created_at, c.id) > (${after.createdAt}, ${after.id})
    order by c.created_at, c.id
    limit ${batch}`.execute(db);
  const last = rows.at(-1);
  const compact = rows.filter((r) => !r.outcome_change && !r.latest);
  const changes = rows.filter((r) => r.outcome_change);
  if (compact.length > 0)
    await sql`
      update runs set details_compacted = true,
        steps = case when jsonb_typeof(runs.steps) = 'array' then coalesce((
          select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('nodeId', s -> 'nodeId', 'type', s -> 'type',
            'status', s -> 'status', 'durationMs', s -> 'durationMs')) order by i)
          from jsonb_array_elements(runs.steps) with ordinality as steps(s, i)), '[]'::jsonb) else runs.steps end
      where ${keyIn(compact)}`.execute(db);
  if (changes.length > 0)
    await sql`update runs set details_compacted = false where ${keyIn(changes)}`.execute(db);
  return {
    examined: rows.length,
    compacted: compact.length,
    cursor: last === undefined ? cursor : { createdAt: last.created_at, id: last.id },
  };
}

/** Rows by their full key, so each update probes the primary key of the one partition holding the row. */
function keyIn(rows: ReadonlyArray<{ organization_id: string; id: string; created_at: Date }>) {
  return sql`(organization_id, id, created_at) in (${sql.join(
    rows.map((r) => sql`(${r.organization_id}, ${r.id}, ${r.created_at})`),
  )})`;
}
