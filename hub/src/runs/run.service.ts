import { answeredDefinition } from '../monitors/stored-definition.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { monitorLocations } from '../contract/stored-monitor.js';
import type { Run, RunResultReport } from '../contract/run.js';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { ConflictError, NotFoundError, UnavailableError, ValidationError } from '../http/errors.js';
import { findMonitor, monitorRowToMonitor } from '../monitors/monitor.repository.js';
import type { RunQueue } from './run-queue.js';
import type { Clock } from '../system/clock.js';
import { createSnapshotCache } from '../system/snapshot-cache.js';
import { recordRunResult, type RunFinishedHook } from './run-finished.js';
import {
  claimRun,
  COUNTED_TOTAL_LIMIT,
  estimateRunTotal,
  finishRun,
  findRun,
  insertRuns,
  listRuns,
  type RunFilter,
  type RunRow,
} from './run.repository.js';
import { jsonColumn } from '../db/json-column.js';
import { compactedStepsOf } from './compacted-steps.js';

function runRowToRun(
  row: RunRow,
  monitor?: Pick<Monitor, 'id' | 'name' | 'version' | 'frequency' | 'locations'>,
): Run {
  return {
    id: row.id,
    monitorId: row.monitor_id,
    executionGroupId: row.execution_group_id,
    location: row.location,
    environment: row.environment,
    status: row.status,
    triggeredBy: row.triggered_by,
    startedAt: row.started_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null,
    duration_ms: row.duration_ms,
    success: row.success,
    errors: row.errors,
    // A compacted run's steps may be stored as arrays (docs/adr/0080): answered as the objects they were.
    steps: row.details_compacted === true ? compactedStepsOf(row.steps) : row.steps,
    ...(row.details_compacted === true ? { detailsCompacted: true as const } : {}),
    createdAt: row.created_at.toISOString(),
    ...(monitor === undefined
      ? {}
      : {
          monitor: {
            id: monitor.id,
            name: monitor.name,
            version: monitor.version,
            frequency: monitor.frequency,
            locations: monitorLocations(monitor),
          },
        }),
  };
}

export interface RunServiceDeps {
  db: Db;
  queue: RunQueue;
  clock: Clock;
  /** Rollups and rule evaluation, as for runs finished by workers. */
  hooks?: readonly RunFinishedHook[];
}

/** How old an estimated list total may be: totals above 10,000 need not be to the second. */
const ESTIMATE_MAX_AGE_MS = 30_000;

export function createRunService({ db, queue, clock, hooks = [] }: RunServiceDeps) {
  // An estimate sums a day row per monitor and day kept (31,000 rows for 1,000 monitors): once per filter and
  // 30 s, not per page (docs/runs.md). A failed background refresh keeps the old figure; the next request past
  // twice the age waits for a new one and sees its error.
  const estimates = createSnapshotCache<{ organizationId: string; filter: RunFilter }, number | undefined>({
    compute: ({ organizationId, filter }) => estimateRunTotal(db, organizationId, filter),
    maxAgeMs: () => ESTIMATE_MAX_AGE_MS,
    keyOf: ({ organizationId, filter }) =>
      JSON.stringify([
        organizationId,
        filter.monitorId,
        filter.status,
        filter.executionGroupId,
        filter.project,
        filter.environment,
      ]),
    now: () => clock.now().getTime(),
    maxEntries: 1_000,
    onRefreshError: () => undefined,
  });

  return {
    /** A runner Job takes its run: pending -> running, once. */
    async start(organizationId: string, id: string): Promise<Run> {
      const claimed = await claimRun(db, organizationId, id, clock.now());
      if (claimed !== undefined) return runRowToRun(claimed);
      const row = await findRun(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`run ${id} not found`);
      throw new ConflictError(
        `run ${id} is ${row.status}, not pending: another runner took it or it has ended`,
      );
    },

    /**
     * A runner reports its run's outcome, accepted only while the run is `running` (the UPDATE's own
     * condition): the first report wins, and a run never started or already finished answers 409.
     */
    async report(organizationId: string, id: string, result: RunResultReport): Promise<Run> {
      const finished = await recordRunResult(
        db,
        { organization_id: organizationId, id },
        {
          success: result.success,
          errors: result.errors,
          steps: result.steps,
          completedAt: result.completedAt === undefined ? clock.now() : new Date(result.completedAt),
          durationMs: result.durationMs,
        },
        hooks,
        ['running'],
      );
      if (finished !== undefined) return runRowToRun(finished);
      const row = await findRun(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`run ${id} not found`);
      if (row.status === 'pending')
        throw new ConflictError(`run ${id} is pending, not running: its runner must start it first`);
      throw new ConflictError(`run ${id} already has its result (${row.status})`);
    },

    /** One pending run per location, sharing an execution group, each enqueued for its location's workers. */
    async trigger(
      organizationId: string,
      monitorId: string,
      request: { environment: string; location?: string | undefined },
    ): Promise<Run> {
      const row = await findMonitor(db, organizationId, monitorId);
      if (row === undefined) throw new NotFoundError(`monitor ${monitorId} not found`);
      const monitor = monitorRowToMonitor(row);
      if (monitor.heartbeat !== undefined)
        throw new ConflictError(
          `monitor ${monitorId} is a heartbeat monitor: its job pings it, nothing runs`,
          [{ path: 'monitorId', message: 'a heartbeat monitor cannot be triggered' }],
        );
      const locations = monitorLocations(monitor);
      if (request.location !== undefined && !locations.includes(request.location)) {
        const message = `monitor ${monitorId} does not run in "${request.location}" (its locations: ${locations.join(', ')})`;
        throw new ValidationError(message, [{ path: 'location', message }]);
      }
      const executionGroupId = newId('grp');
      const now = clock.now();
      const runs = await insertRuns(
        db,
        (request.location === undefined ? locations : [request.location]).map((location) => ({
          organization_id: organizationId,
          id: newId('run'),
          monitor_id: monitorId,
          execution_group_id: executionGroupId,
          location,
          environment: request.environment,
          status: 'pending' as const,
          triggered_by: 'manual' as const,
          schedule_slot: null,
          errors: jsonColumn([]),
          created_at: now,
        })),
      );
      try {
        for (const run of runs)
          await queue.enqueue({ organizationId, monitorId, location: run.location, runId: run.id });
      } catch (error) {
        for (const run of runs) {
          await finishRun(db, organizationId, run.id, {
            success: false,
            errors: ['run could not be queued: the queue (Redis) did not answer'],
            steps: null,
            completedAt: clock.now(),
            durationMs: null,
          });
        }
        throw new UnavailableError('the run queue did not answer; the run was not started', { cause: error });
      }
      return runRowToRun(runs[0] as RunRow);
    },

    async list(organizationId: string, filter: RunFilter, page: { page: number; limit: number }) {
      const { rows, counted } = await listRuns(db, organizationId, filter, page);
      const totalExact = counted <= COUNTED_TOTAL_LIMIT;
      const total = totalExact
        ? counted
        : Math.max(counted, (await estimates.get({ organizationId, filter })) ?? 0);
      const data = rows.map(({ monitor_name, monitor_definition, ...run }) =>
        // The name column is the definition's name (monitors/monitor.service.ts writes both from it).
        runRowToRun(run, {
          ...answeredDefinition(monitor_definition),
          id: run.monitor_id,
          name: monitor_name,
        }),
      );
      return { data, total, totalExact };
    },

    async get(organizationId: string, id: string): Promise<Run> {
      const row = await findRun(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`run ${id} not found`);
      return runRowToRun(row);
    },
  };
}
export type RunService = ReturnType<typeof createRunService>;
