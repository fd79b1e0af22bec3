import type { Logger } from 'pino';
import type { MonitorDefinition } from '../contract/monitor-definition.js';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { currentDefinition } from '../monitors/stored-definition.js';
import { MONITOR_DELETED_ERROR, type RunOutcome } from '../runner/run-outcome.js';
import type { LocationExecutor, ScheduledSlot } from '../runs/location-executor.js';
import {
  recordRunResult,
  type ExecutedScheduledResult,
  type ExecutedScheduledRun,
  type RunFinishedHook,
} from '../runs/run-finished.js';
import {
  claimRun,
  reclaimRun,
  type DetailsAtInsert,
  type RunResult,
  type RunRow,
} from '../runs/run.repository.js';
import { RetryLaterError } from '../scheduling/job-retries.js';
import type { SecretReader } from '../secrets/secret-store.js';
import {
  DependencyUnavailableError,
  isDatabaseUnavailable,
  shortReason,
} from '../system/dependency-errors.js';
import type { Clock } from '../system/clock.js';
import { createPlaces, type Places } from '../system/places.js';
import { createMonitorReader, type MonitorReader } from './monitor-reader.js';
import { createParkedResults } from './parked-results.js';
import { createScheduledRunWriter } from './scheduled-run-writer.js';
import { handOver, readHandedOver } from './handed-over-results.js';
import { SlotSupersededError } from '../runs/slot-superseded-error.js';
import { ResultAwaitingWriteError } from '../runs/result-awaiting-write-error.js';

export interface MonitorRunnerPort {
  run(
    monitor: MonitorDefinition,
    context: { secrets: SecretReader; organizationId: string; signal?: AbortSignal },
  ): Promise<RunOutcome>;
}

export interface WorkerExecutorDeps {
  db: Db;
  runner: MonitorRunnerPort;
  secrets: SecretReader;
  clock: Clock;
  log: Logger;
  hooks: readonly RunFinishedHook[];
  /** RUN_DETAILS_AT_INSERT: whether passing runs of unchanged outcome are inserted compacted (docs/adr/0072). */
  detailsAtInsert?: DetailsAtInsert;
  /** RUN_WRITE_GATHER_MS: the least time between the starts of two batches of results (docs/adr/0082). */
  writeGatherMs?: number;
  /** The definitions the worker remembers, shared by its executors; without it, one of the executor's own. */
  monitors?: MonitorReader;
  /**
   * The worker's WORKER_CONCURRENCY, shared by the executors of all its locations: checks under way at once.
   * A finished result waiting for its batch's write holds no place here. Without it, checks are not limited.
   */
  checks?: Pick<Places, 'run'>;
  /** Counts a checked result among those waiting for their batch's write (the worker's admission). */
  awaitWrite?: <T>(write: () => Promise<T>) => Promise<T>;
}

/**
 * The secret reader a run uses, remembering whether a read failed because the database was away: such a run's
 * outcome says nothing about its target, so it is retried rather than recorded as a failure.
 */
function watchedSecrets(secrets: SecretReader) {
  let unavailable: unknown;
  const reader: SecretReader = {
    async read(scope, name, version) {
      try {
        return await secrets.read(scope, name, version);
      } catch (error) {
        if (isDatabaseUnavailable(error)) unavailable = error;
        throw error;
      }
    },
  };
  return { reader, unavailable: () => unavailable };
}

/** The `worker` executor: runs the monitor in this process and records the outcome. */
export function createWorkerExecutor(deps: WorkerExecutorDeps): LocationExecutor {
  const { db, clock, log } = deps;
  const monitors = deps.monitors ?? createMonitorReader(db);
  const scheduledRuns = createScheduledRunWriter(db, deps.hooks, {
    ...(deps.detailsAtInsert === undefined ? {} : { detailsAtInsert: deps.detailsAtInsert }),
    ...(deps.writeGatherMs === undefined ? {} : { gatherMs: deps.writeGatherMs }),
  });
  const checks = deps.checks ?? createPlaces(Number.POSITIVE_INFINITY);
  const awaitWrite = deps.awaitWrite ?? ((write) => write());
  const recordScheduled = (executed: ExecutedScheduledResult) =>
    awaitWrite(() => scheduledRuns.record(executed));
  // Results whose write failed because the database was away, by job id: the job's retry writes them.
  const parked = createParkedResults<{ run: RunRow | ExecutedScheduledRun; result: RunResult }>();

  /** Checks a monitor once it has a place; a slot whose next is due by then is shed (SlotSupersededError). */
  const runMonitor = async (
    definition: MonitorDefinition,
    organizationId: string,
    signal: AbortSignal,
    supersededAtMs = Number.POSITIVE_INFINITY,
  ): Promise<{ result: RunResult; startedAt: Date }> => {
    let started = clock.now();
    const secrets = watchedSecrets(deps.secrets);
    let outcome: RunOutcome;
    try {
      outcome = await checks.run(
        () => {
          // The check starts when it gets its place: that is when its run started.
          started = clock.now();
          if (started.getTime() >= supersededAtMs) throw new SlotSupersededError();
          return deps.runner.run(definition, { secrets: secrets.reader, organizationId, signal });
        },
        organizationId,
        supersededAtMs !== Number.POSITIVE_INFINITY,
      );
    } catch (error) {
      if (error instanceof SlotSupersededError) throw error;
      log.error({ err: error }, 'the runner failed');
      const completedAt = clock.now();
      const result: RunResult = {
        success: false,
        errors: ['the runner failed unexpectedly; see the worker log'],
        steps: null,
        completedAt,
        durationMs: completedAt.getTime() - started.getTime(),
      };
      return { result, startedAt: started };
    }
    const unavailable = secrets.unavailable();
    if (unavailable !== undefined && !outcome.success)
      throw new DependencyUnavailableError('database', shortReason(unavailable), { cause: unavailable });
    const result: RunResult = {
      success: outcome.success,
      errors: outcome.errors,
      steps: outcome.steps,
      completedAt: outcome.completedAt,
      durationMs: outcome.durationMs,
    };
    return { result, startedAt: started };
  };

  /** Writes a result, or parks it under the job when the database is away (the queue then retries the job). */
  const recordParking = async <T>(
    jobId: string,
    entry: { run: RunRow | ExecutedScheduledRun; result: RunResult },
    write: () => Promise<T>,
  ) => {
    try {
      const written = await write();
      parked.forget(jobId);
      return written;
    } catch (error) {
      if (isDatabaseUnavailable(error)) parked.keep(jobId, entry);
      throw error;
    }
  };

  const executeClaimed = async (run: RunRow, signal: AbortSignal) => {
    const waiting = parked.take(run.id);
    if (waiting !== undefined) {
      await recordParking(run.id, waiting, () => recordRunResult(db, run, waiting.result, deps.hooks));
      return;
    }
    const monitorRow = await monitors.read(run.organization_id, run.monitor_id);
    const result: RunResult =
      monitorRow === undefined
        ? {
            success: false,
            errors: [MONITOR_DELETED_ERROR],
            steps: null,
            completedAt: clock.now(),
            durationMs: 0,
          }
        : (
            await runMonitor(
              {
                ...currentDefinition(monitorRow.definition),
                environment: run.environment,
              },
              run.organization_id,
              signal,
            )
          ).result;
    if (signal.aborted && !result.success)
      result.errors = ['the worker shut down before the run finished', ...result.errors];
    await recordParking(run.id, { run, result }, () => recordRunResult(db, run, result, deps.hooks));
  };

  return {
    async execute(pending, signal) {
      const run = await claimRun(db, pending.organization_id, pending.id, clock.now());
      if (run !== undefined) await executeClaimed(run, signal);
    },

    async resume(running, signal) {
      if (parked.has(running.id)) return executeClaimed(running, signal);
      const run = await reclaimRun(db, running.organization_id, running.id, clock.now());
      if (run !== undefined) await executeClaimed(run, signal);
    },

    async executeScheduled(slot: ScheduledSlot, signal) {
      const monitorRow = await monitors.read(slot.organizationId, slot.monitorId, slot.version);
      // A monitor deleted since its slot was scheduled has nothing to record.
      if (monitorRow === undefined) return;
      const run: ExecutedScheduledRun = {
        organization_id: slot.organizationId,
        id: newId('run'),
        monitor_id: slot.monitorId,
        execution_group_id: newId('grp'),
        location: slot.location,
        environment: monitorRow.environment,
        schedule_slot: slot.slot,
        started_at: clock.now(),
      };
      const definition = currentDefinition(monitorRow.definition);
      const { result, startedAt } = await runMonitor(
        { ...definition, environment: run.environment },
        run.organization_id,
        signal,
        slot.supersededAtMs,
      );
      run.started_at = startedAt;
      // Cut short by the worker's shutdown: the outcome says nothing about the target, so the slot's job is
      // handed back to run on another worker rather than recorded as a failure.
      if (signal.aborted && !result.success)
        throw new RetryLaterError('the worker shut down before the run finished');
      try {
        await recordScheduled({ run, result });
      } catch (error) {
        // Checked, not written: the queue keeps the result and hands it back to writeHandedOver, never to a check.
        if (isDatabaseUnavailable(error))
          throw new ResultAwaitingWriteError(handOver({ run, result }), { cause: error });
        throw error;
      }
    },

    async writeHandedOver(results) {
      await Promise.all(results.map((entry) => recordScheduled(readHandedOver(entry))));
    },
  };
}
