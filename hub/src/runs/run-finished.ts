import type { Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import { contentRefusalOf } from '../db/errors.js';
import type { Database } from '../db/tables.js';
import type { RunTable } from '../db/tables.js';
import {
  finishRun,
  insertScheduledRun,
  resultColumns,
  type RunResult,
  type RunRow,
} from './run.repository.js';
import { systemFailureError } from './system-failure.js';

/**
 * What follows a finished run (metric rollups, notification rule evaluation). Each hook runs in the same
 * transaction that records the result, so a run is never counted without its rules being evaluated, or twice.
 */
export interface RunFinishedHook {
  readonly name: string;
  onRunFinished(tx: Transaction<Database>, run: RunRow): Promise<void>;
}

/** The statuses a run may be finished from; a runner's report is accepted only for a run it has started. */
export type FinishableStatuses = ReadonlyArray<RunRow['status']>;

async function writeRunResult(
  db: Db,
  run: Pick<RunRow, 'organization_id' | 'id'>,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
  from: FinishableStatuses | undefined,
): Promise<RunRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const finished = await finishRun(tx, run.organization_id, run.id, result, from);
    if (finished === undefined) return undefined;
    for (const hook of hooks) await hook.onRunFinished(tx, finished);
    return finished;
  });
}

/** A scheduled run a worker has carried out, before it has a row: who, where, which slot, when it started. */
export type ExecutedScheduledRun = Pick<
  RunTable,
  'organization_id' | 'id' | 'monitor_id' | 'execution_group_id' | 'location' | 'environment'
> & { schedule_slot: string; started_at: Date };

async function insertExecutedRun(
  db: Db,
  run: ExecutedScheduledRun,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
): Promise<RunRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const inserted = await insertScheduledRun(tx, {
      ...run,
      triggered_by: 'schedule',
      ...resultColumns(result),
    });
    if (inserted === undefined) return undefined;
    for (const hook of hooks) await hook.onRunFinished(tx, inserted);
    return inserted;
  });
}

/** The result the database refused for its content, replaced by a failure that says so without quoting it. */
function refusedResult(result: RunResult, refusal: string): RunResult {
  return {
    success: false,
    errors: [systemFailureError(`its result could not be stored (the database refused it: ${refusal})`)],
    steps: null,
    completedAt: result.completedAt,
    durationMs: result.durationMs,
  };
}

/**
 * Records a scheduled run a worker has finished, in one insert with its hooks (docs/adr/0015): no pending or
 * running row comes first, so a worker that dies mid-run leaves nothing behind and the slot's redelivered job
 * runs it again. `undefined` when the slot already has its run (a second delivery of the same slot). A failure
 * to reach the database is thrown for the queue to retry; a refused result fails the run, saying so.
 */
export async function recordScheduledRun(
  db: Db,
  run: ExecutedScheduledRun,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
): Promise<RunRow | undefined> {
  try {
    return await insertExecutedRun(db, run, result, hooks);
  } catch (error) {
    const refusal = contentRefusalOf(error);
    if (refusal === undefined) throw error;
    return insertExecutedRun(db, run, refusedResult(result, refusal), hooks);
  }
}

/**
 * Records a run's result once and runs the hooks; `undefined` when the run was not in one of `from` (by
 * default pending or running). A result the database refuses for its content (whatever escaping missed) fails
 * the run with the reason instead, so the run is never left `running` for the reaper to guess at; any other
 * failure (the database unreachable) is thrown for the caller to log and retry.
 */
export async function recordRunResult(
  db: Db,
  run: Pick<RunRow, 'organization_id' | 'id'>,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
  from?: FinishableStatuses,
): Promise<RunRow | undefined> {
  try {
    return await writeRunResult(db, run, result, hooks, from);
  } catch (error) {
    const refusal = contentRefusalOf(error);
    if (refusal === undefined) throw error;
    return writeRunResult(db, run, refusedResult(result, refusal), hooks, from);
  }
}
