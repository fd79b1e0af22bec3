import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { findMonitor } from '../monitors/monitor.repository.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import { findRun, insertScheduledRun, type RunRow } from '../runs/run.repository.js';
import type { DeliveredRunJob } from '../runs/run-queue.js';
import { jsonColumn } from '../db/json-column.js';

export interface RunJobHandlerDeps {
  db: Db;
  executors: ReadonlyMap<string, LocationExecutor>;
  log: Logger;
  signal: AbortSignal;
  /** Told how late each scheduled run started (start minus due time), for the drift figures. */
  onScheduledStart?: (driftMs: number, location: string) => void;
}

/**
 * The pending run of a scheduled slot, for executors that need a row before they start (runner Jobs): made once,
 * however often the job is delivered (the unique (monitor, location, slot) key).
 */
async function pendingRunOfSlot(db: Db, job: DeliveredRunJob, slot: string): Promise<RunRow | undefined> {
  const { organizationId, monitorId, location } = job.data;
  const monitor = await findMonitor(db, organizationId, monitorId);
  if (monitor === undefined) return undefined;
  return insertScheduledRun(db, {
    organization_id: organizationId,
    id: newId('run'),
    monitor_id: monitorId,
    execution_group_id: newId('grp'),
    location,
    environment: monitor.environment,
    status: 'pending',
    triggered_by: 'schedule',
    schedule_slot: slot,
    errors: jsonColumn([]),
  });
}

export function createRunJobHandler(deps: RunJobHandlerDeps) {
  const executorOf = (location: string): LocationExecutor | undefined => {
    const executor = deps.executors.get(location);
    if (executor === undefined) deps.log.error({ location }, 'no executor serves this location');
    return executor;
  };

  return async (job: DeliveredRunJob): Promise<void> => {
    const { organizationId, monitorId, location, runId, version } = job.data;
    const executor = executorOf(location);
    if (executor === undefined) return;

    if (runId === undefined) {
      if (job.slot === undefined) return;
      // A retry's lateness is the fault's, not the schedule's: only first deliveries count as drift.
      if (job.delivery === 1) deps.onScheduledStart?.(Date.now() - job.dueAt.getTime(), location);
      if (executor.executeScheduled !== undefined) {
        const supersededAtMs = job.everyMs === undefined ? undefined : job.dueAt.getTime() + job.everyMs;
        const slot = {
          jobId: job.id,
          organizationId,
          monitorId,
          location,
          slot: job.slot,
          version,
          supersededAtMs,
        };
        await executor.executeScheduled(slot, deps.signal);
        return;
      }
      const pending = await pendingRunOfSlot(deps.db, job, job.slot);
      if (pending !== undefined) await executor.execute(pending, deps.signal);
      return;
    }

    const run = await findRun(deps.db, organizationId, runId);
    if (run === undefined) return;
    if (run.status === 'pending') await executor.execute(run, deps.signal);
    // A job that comes again for a running run: its worker died (or lost the job) mid-run.
    else if (run.status === 'running' && job.delivery > 1 && executor.resume !== undefined)
      await executor.resume(run, deps.signal);
  };
}
