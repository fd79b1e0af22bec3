import type { Transaction } from 'kysely';
import type { Db } from '../db/database.js';
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

/** Records a run's result once and runs the hooks; `undefined` when the run had already been finished. */
export async function recordRunResult(
  db: Db,
  run: Pick<RunRow, 'organization_id' | 'id'>,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
): Promise<RunRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const finished = await finishRun(tx, run.organization_id, run.id, result);
    if (finished === undefined) return undefined;
    for (const hook of hooks) await hook.onRunFinished(tx, finished);
    return finished;
  });
}
