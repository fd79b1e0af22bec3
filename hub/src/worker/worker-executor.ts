import type { Logger } from 'pino';
import type { MonitorDefinition } from '../contract/monitor-definition.js';
import { definitionOf } from '../contract/stored-monitor.js';
import type { Db } from '../db/database.js';
import { findMonitor } from '../monitors/monitor.repository.js';
import { monitorRowToMonitor } from '../monitors/monitor.service.js';
import { MONITOR_DELETED_ERROR, type RunOutcome } from '../runner/run-outcome.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import { recordRunResult, type RunFinishedHook } from '../runs/run-finished.js';
import { claimRun } from '../runs/run.repository.js';
import type { SecretReader } from '../secrets/secret-store.js';
import type { Clock } from '../system/clock.js';

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
}

/** The `worker` executor: runs the monitor in this process and records the outcome. */
export function createWorkerExecutor(deps: WorkerExecutorDeps): LocationExecutor {
  const { db, clock, log } = deps;
  return {
    async execute(pending, signal) {
      const run = await claimRun(db, pending.organization_id, pending.id, clock.now());
      if (run === undefined) return;
      const monitorRow = await findMonitor(db, run.organization_id, run.monitor_id);
      const started = clock.now();
      if (monitorRow === undefined) {
        await recordRunResult(
          db,
          run,
          {
            success: false,
            errors: [MONITOR_DELETED_ERROR],
            steps: null,
            completedAt: started,
            durationMs: 0,
          },
          deps.hooks,
        );
        return;
      }
      const definition = definitionOf(monitorRowToMonitor(monitorRow));
      let outcome: RunOutcome;
      try {
        outcome = await deps.runner.run(
          { ...(definition as MonitorDefinition), environment: run.environment },
          { secrets: deps.secrets, organizationId: run.organization_id, signal },
        );
      } catch (error) {
        log.error({ err: error, runId: run.id }, 'the runner failed');
        const completedAt = clock.now();
        await recordRunResult(
          db,
          run,
          {
            success: false,
            errors: ['the runner failed unexpectedly; see the worker log'],
            steps: null,
            completedAt,
            durationMs: completedAt.getTime() - started.getTime(),
          },
          deps.hooks,
        );
        return;
      }
      const aborted = signal.aborted && !outcome.success;
      await recordRunResult(
        db,
        run,
        {
          success: outcome.success,
          errors: aborted
            ? ['the worker shut down before the run finished', ...outcome.errors]
            : outcome.errors,
          steps: outcome.steps,
          completedAt: outcome.completedAt,
          durationMs: outcome.durationMs,
        },
        deps.hooks,
      );
    },
  };
}
