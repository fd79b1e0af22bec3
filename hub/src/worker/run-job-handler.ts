import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { findMonitor } from '../monitors/monitor.repository.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import { findRun, insertScheduledRun, type RunRow } from '../runs/run.repository.js';
import type { DeliveredRunJob } from '../scheduling/run-queue.js';

export interface RunJobHandlerDeps {
  db: Db;
  executors: ReadonlyMap<string, LocationExecutor>;
  log: Logger;
  signal: AbortSignal;
  /** Told how late each scheduled run started (start minus due time), for the drift figures. */
  onScheduledStart?: (driftMs: number, location: string) => void;
}

/**
 * The run of a delivered job: a manual job names its run; a scheduled one makes the run of its slot, once,
 * however often the job is delivered (the unique (monitor, location, slot) key).
 */
async function runOfJob(db: Db, job: DeliveredRunJob): Promise<RunRow | undefined> {
  const { organizationId, monitorId, location, runId } = job.data;
  if (runId !== undefined) return findRun(db, organizationId, runId);
  const monitor = await findMonitor(db, organizationId, monitorId);
  if (monitor === undefined || job.slot === undefined) return undefined;
  return insertScheduledRun(db, {
    organization_id: organizationId,
    id: newId('run'),
    monitor_id: monitorId,
    execution_group_id: newId('grp'),
    location,
    environment: monitor.environment,
    status: 'pending',
    triggered_by: 'schedule',
    schedule_slot: job.slot,
    errors: JSON.stringify([]),
  });
}

export function createRunJobHandler(deps: RunJobHandlerDeps) {
  return async (job: DeliveredRunJob): Promise<void> => {
    const run = await runOfJob(deps.db, job);
    if (run === undefined || run.status !== 'pending') return;
    const executor = deps.executors.get(run.location);
    if (executor === undefined) {
      deps.log.error({ location: run.location, runId: run.id }, 'no executor serves this location');
      return;
    }
    if (job.slot !== undefined) deps.onScheduledStart?.(Date.now() - job.dueAt.getTime(), run.location);
    await executor.execute(run, deps.signal);
  };
}
