import type { Db, DbTransaction } from '../db/database.js';
import { constraintOf, contentRefusalOf, hasSqlState, SqlState } from '../db/errors.js';
import type { RunTable } from '../db/tables.js';
import {
  finishRun,
  insertFinishedScheduledRuns,
  resultColumns,
  type DetailsAtInsert,
  type FinishedScheduledRun,
  type RunResult,
  type RunRow,
} from './run.repository.js';
import { systemFailureError } from './system-failure.js';

/**
 * What follows finished runs (metric rollups, notification rule evaluation). Each hook runs in the same
 * transaction that records the results, so a run is never counted without its rules being evaluated, or twice.
 * The runs of one call belong to distinct monitors, ordered by organization and monitor: a hook may write one
 * row per monitor in one statement, and every writer takes its row locks in that order (no deadlock).
 */
export interface RunFinishedHook {
  readonly name: string;
  /** May return what to do once the transaction committed (hand over notifications, ADR 0051). */
  onRunsFinished(tx: DbTransaction, runs: readonly RunRow[]): Promise<void | AfterCommit>;
}

/** Work a hook leaves for after the commit; it handles its own failures (the runs are recorded by then). */
export type AfterCommit = (db: Db) => Promise<void>;

/** Runs what the hooks left for after the commit, in hook order. */
export async function runAfterCommit(db: Db, afterCommit: readonly AfterCommit[]): Promise<void> {
  for (const next of afterCommit) await next(db);
}

type RunMonitor = Pick<RunRow, 'organization_id' | 'monitor_id'>;
/** A key naming the monitor of a run. */
export const monitorKey = (run: RunMonitor) => `${run.organization_id}\n${run.monitor_id}`;

/** Runs in the order hooks take their locks: by organization, then monitor. */
const byMonitor = (a: RunMonitor, b: RunMonitor) => {
  const [left, right] = [monitorKey(a), monitorKey(b)];
  return left < right ? -1 : left > right ? 1 : 0;
};

async function runHooks(
  tx: DbTransaction,
  runs: RunRow[],
  hooks: readonly RunFinishedHook[],
  afterCommit: AfterCommit[],
) {
  if (runs.length === 0) return;
  runs.sort(byMonitor);
  for (const hook of hooks) {
    const next = await hook.onRunsFinished(tx, runs);
    if (next) afterCommit.push(next);
  }
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
  const afterCommit: AfterCommit[] = [];
  const finished = await db.transaction().execute(async (tx) => {
    const finished = await finishRun(tx, run.organization_id, run.id, result, from);
    if (finished === undefined) return undefined;
    await runHooks(tx, [finished], hooks, afterCommit);
    return finished;
  });
  await runAfterCommit(db, afterCommit);
  return finished;
}

/** A scheduled run a worker has carried out, before it has a row: who, where, which slot, when it started. */
export type ExecutedScheduledRun = Pick<
  RunTable,
  'organization_id' | 'id' | 'monitor_id' | 'execution_group_id' | 'location' | 'environment'
> & { schedule_slot: string; started_at: Date };

/** A finished scheduled run and its result, as a worker hands it over to be written. */
export interface ExecutedScheduledResult {
  run: ExecutedScheduledRun;
  result: RunResult;
}

async function insertExecutedRuns(
  db: Db,
  executed: readonly ExecutedScheduledResult[],
  hooks: readonly RunFinishedHook[],
  detailsAtInsert: DetailsAtInsert,
): Promise<Map<string, RunRow>> {
  const monitors = new Set(executed.map(({ run }) => monitorKey(run)));
  if (monitors.size !== executed.length) throw new Error('a batch of results holds two runs of one monitor');
  const afterCommit: AfterCommit[] = [];
  const inserted = await db.transaction().execute(async (tx) => {
    const inserted = await insertFinishedScheduledRuns(
      tx,
      [...executed]
        .sort((a, b) => byMonitor(a.run, b.run))
        .map(({ run, result }) => ({ ...run, ...resultColumns(result) })),
      detailsAtInsert,
    );
    await runHooks(tx, inserted, hooks, afterCommit);
    return new Map(inserted.map((row) => [row.id, row]));
  });
  await runAfterCommit(db, afterCommit);
  return inserted;
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
 * Records scheduled runs workers have finished, of distinct monitors, in one insert with their hooks and one
 * transaction (docs/adr/0015, docs/adr/0022): no pending or running row comes first, so a worker that dies
 * mid-run leaves nothing behind and the slot's redelivered job runs it again. Each entry's row in order, or
 * `undefined` when its slot already had its run (a second delivery of the same slot). A failure is thrown for
 * the whole batch: the database away (the queue retries), or a result it refused (write them one by one).
 * `detailsAtInsert` is RUN_DETAILS_AT_INSERT (docs/adr/0072).
 */
export async function recordScheduledRuns(
  db: Db,
  executed: readonly ExecutedScheduledResult[],
  hooks: readonly RunFinishedHook[],
  detailsAtInsert: DetailsAtInsert = 'whole',
): Promise<Array<RunRow | undefined>> {
  const inserted = await insertExecutedRuns(db, executed, hooks, detailsAtInsert);
  return executed.map(({ run }) => inserted.get(run.id));
}

/**
 * Runs the hub judges itself rather than a worker running a check (heartbeat pings and missed periods,
 * docs/adr/0034-heartbeat-monitors.md), of distinct monitors, inserted finished with the hooks in the caller's
 * transaction, so the caller's own state (a heartbeat's deadline) moves in the same commit as the run it records.
 * What the hooks leave for after the commit is added to `afterCommit`: the caller runs it (runAfterCommit).
 */
export async function recordJudgedRuns(
  tx: DbTransaction,
  runs: readonly FinishedScheduledRun[],
  hooks: readonly RunFinishedHook[],
  afterCommit: AfterCommit[],
): Promise<RunRow[]> {
  const inserted = await insertFinishedScheduledRuns(tx, [...runs].sort(byMonitor));
  await runHooks(tx, inserted, hooks, afterCommit);
  return inserted;
}

/** The runs' foreign key to their monitor (migration 0009). */
const RUNS_MONITOR_FK = 'runs_monitor_fk';

/**
 * Records one scheduled run a worker has finished, as `recordScheduledRuns`; a result the database refuses for
 * its content fails the run, saying so, instead of being thrown. A monitor deleted while its slot ran (slots are
 * queued ahead of their time) has nothing to record: `undefined`, as for a slot that had its run.
 */
export async function recordScheduledRun(
  db: Db,
  run: ExecutedScheduledRun,
  result: RunResult,
  hooks: readonly RunFinishedHook[],
  detailsAtInsert: DetailsAtInsert = 'whole',
): Promise<RunRow | undefined> {
  try {
    const [row] = await recordScheduledRuns(db, [{ run, result }], hooks, detailsAtInsert);
    return row;
  } catch (error) {
    if (hasSqlState(error, SqlState.foreignKeyViolation) && constraintOf(error) === RUNS_MONITOR_FK)
      return undefined;
    const refusal = contentRefusalOf(error);
    if (refusal === undefined) throw error;
    const [row] = await recordScheduledRuns(db, [{ run, result: refusedResult(result, refusal) }], hooks);
    return row;
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
    if (hasSqlState(error, SqlState.foreignKeyViolation) && constraintOf(error) === RUNS_MONITOR_FK)
      return undefined;
    const refusal = contentRefusalOf(error);
    if (refusal === undefined) throw error;
    return writeRunResult(db, run, refusedResult(result, refusal), hooks, from);
  }
}
