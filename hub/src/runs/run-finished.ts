import type { Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import { contentRefusalOf } from '../db/errors.js';
import type { Database } from '../db/tables.js';
import { finishRun, type RunResult, type RunRow } from './run.repository.js';

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
    const failed: RunResult = {
      success: false,
      errors: [
        `run failed by the system: its result could not be stored (the database refused it: ${refusal})`,
      ],
      steps: null,
      completedAt: result.completedAt,
      durationMs: result.durationMs,
    };
    return writeRunResult(db, run, failed, hooks, from);
  }
}
