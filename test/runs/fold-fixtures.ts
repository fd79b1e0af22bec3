// Runs of mon-1 written straight to `runs`, for the tests of the compaction and the fold (docs/adr/0050, 0061, 0066).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../hub/src/db/database.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
export const NOW = new Date(Math.floor(Date.now() / HOUR) * HOUR + 30 * MINUTE);
/** Two days ago, five minutes into the hour: ten runs a minute apart stay in one hour. */
export const START = NOW.getTime() - 48 * HOUR - 25 * MINUTE;

/** Two passes, two failures, six passes: the first run, the failures and the pass after them are kept whole. */
export const PASSES_AROUND_FAILURES = [
  ...(['pass', 'pass', 'fail', 'fail'] as const),
  ...Array.from({ length: 6 }, () => 'pass' as const),
];

/** The ids and place of a scheduled run of mon-1 for the slot due at `slotMs`, as a worker hands it over. */
export const scheduledRunOf = (slotMs: number) => ({
  organization_id: 'acme',
  id: `run_${randomUUID()}`,
  monitor_id: 'mon-1',
  execution_group_id: `grp_${randomUUID()}`,
  location: 'default',
  environment: 'production',
  schedule_slot: String(slotMs),
});

const detailedSteps = [
  {
    nodeId: 'get',
    type: 'HTTP_REQUEST',
    status: 'passed',
    durationMs: 12,
    response: { status: 200, excerpt: `{"padding":"${'x'.repeat(500)}"}` },
  },
];

/** Runs of mon-1 a minute apart from `start`, passing but for 'fail', with detailed steps; their ids by index. */
export async function insertRuns(
  db: Db,
  outcomes: ReadonlyArray<'pass' | 'fail'>,
  options: { start?: number; id?: (i: number) => string } = {},
): Promise<string[]> {
  const { start = START, id = () => `run_${randomUUID()}` } = options;
  const ids: string[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    const slot = new Date(start + i * MINUTE);
    const runId = id(i);
    ids.push(runId);
    await db
      .insertInto('runs')
      .values({
        organization_id: 'acme',
        id: runId,
        monitor_id: 'mon-1',
        execution_group_id: `grp_${randomUUID()}`,
        location: 'default',
        environment: 'production',
        status: outcome === 'pass' ? 'completed' : 'failed',
        triggered_by: 'schedule',
        schedule_slot: String(slot.getTime()),
        started_at: new Date(slot.getTime() + 250),
        completed_at: new Date(slot.getTime() + 262),
        duration_ms: 12.5,
        success: outcome === 'pass',
        errors: jsonColumn(outcome === 'pass' ? [] : ['status 500']),
        steps: jsonColumn(detailedSteps),
        created_at: slot,
      })
      .execute();
  }
  return ids;
}
