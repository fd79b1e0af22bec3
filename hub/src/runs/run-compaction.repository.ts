import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import {
  amongLatest,
  compactedSteps,
  foldableIds,
  outcomeChanged,
  recordFoldHours,
} from './run-keep.repository.js';

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

interface CompactionOptions {
  before: Date;
  cursor: CompactionCursor | undefined;
  keepLatest: number;
  batch: number;
  /**
   * Folds are on (docs/adr/0066): runs the fold can hold are left whole for it, not compacted first. The batch
   * then walks `runs_details_unfoldable` (migration 0023), the runs it may rewrite, not a day of runs left whole.
   */
  leaveToFold?: boolean;
}

/** The query of one batch's runs, in (created_at, id) order, with what decides whether each keeps its details. */
export function compactionCandidates(options: CompactionOptions) {
  const { before, cursor, keepLatest, batch, leaveToFold = false } = options;
  const after = cursor ?? { createdAt: new Date(0), id: '' };
  // `created_at >=` apart from the row comparison: `runs_details_uncompacted` holds `created_at` alone.
  return sql<{
    organization_id: string;
    id: string;
    created_at: Date;
    outcome_change: boolean;
    latest: boolean;
  }>`
    select c.organization_id, c.id, c.created_at,
      ${outcomeChanged(sql`c`)} as outcome_change, ${amongLatest(sql`c`, keepLatest)} as latest
    from runs c
    where c.success and c.triggered_by = 'schedule' and c.details_compacted is null and c.created_at < ${before}
      ${leaveToFold ? sql`and not ${foldableIds(sql`c`)}` : sql``}
      and c.created_at >= ${after.createdAt} and (c.created_at, c.id) > (${after.createdAt}, ${after.id})
    order by c.created_at, c.id
    limit ${batch}`;
}

/**
 * Compacts one batch of passing scheduled runs created before `before` and after `cursor` (docs/adr/0050): each
 * step keeps its node, type, status and duration; the request, response excerpt, timings, TLS facts and assertion
 * details go. A run stays whole when the run before it in its monitor and location did not pass (a folded run
 * passed, docs/adr/0061: a change of outcome, or its first run: marked so it is not looked at again), or when
 * fewer than `keepLatest` runs of its monitor and location are newer (left unmarked, so a later sweep compacts it
 * once newer runs came).
 */
export async function compactPassingRuns(db: Db, options: CompactionOptions): Promise<CompactionBatch> {
  const { rows } = await compactionCandidates(options).execute(db);
  const last = rows.at(-1);
  const compact = rows.filter((r) => !r.outcome_change && !r.latest);
  const changes = rows.filter((r) => r.outcome_change);
  if (compact.length > 0)
    await sql`
      with compacted as (
        update runs set details_compacted = true,
          steps = ${compactedSteps(sql`runs.steps`)}
        where ${keyIn(compact)}
        returning organization_id, monitor_id, location, created_at, id, execution_group_id, details_compacted)
      ${recordFoldHours(sql`compacted`)}`.execute(db);
  if (changes.length > 0)
    await sql`update runs set details_compacted = false where ${keyIn(changes)}`.execute(db);
  return {
    examined: rows.length,
    compacted: compact.length,
    cursor: last === undefined ? options.cursor : { createdAt: last.created_at, id: last.id },
  };
}

/** Rows by their full key, so each update probes the primary key of the one partition holding the row. */
function keyIn(rows: ReadonlyArray<{ organization_id: string; id: string; created_at: Date }>) {
  return sql`(organization_id, id, created_at) in (${sql.join(
    rows.map((r) => sql`(${r.organization_id}, ${r.id}, ${r.created_at})`),
  )})`;
}
