import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Settings } from '../config/settings.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import { createMonitorRunner, type MonitorRunner } from '../runner/monitor-runner.js';
import type { ConsumeOptions, DropReason, HandedOverResult, SkipReason } from '../runs/run-queue.js';
import { createGapRecorder } from '../ledger/gap-recorder.js';
import type { GapReason } from '../ledger/slot-gap.js';
import type { Components } from './components.js';
import { drainPartOfGraceMs } from './serve-api.js';
import { systemClock } from '../system/clock.js';
import { startRunReaper } from '../worker/run-reaper.js';
import { createRunJobHandler } from '../worker/run-job-handler.js';
import { createWorkerExecutor } from '../worker/worker-executor.js';
import { startPeriodic } from '../system/periodic.js';
import { shortReason } from '../system/dependency-errors.js';
import { createMonitorReader } from '../worker/monitor-reader.js';
import { registerAdmissionMetrics } from '../metrics/prometheus/admission-metrics.js';
import { createAdmission } from '../worker/admission.js';

/** How often a worker reads the monitors changed since it last did (a change also reaches it with its jobs). */
const MONITOR_WARM_MS = 10_000;

const SKIP_GAPS: Record<SkipReason, GapReason> = {
  saturated: 'skipped_saturated',
  shed: 'shed',
  late: 'skipped_late',
  worker_lost: 'skipped_worker_lost',
};
const DROP_GAPS: Record<DropReason, GapReason> = {
  dependency_unavailable: 'dropped_dependency',
  error: 'dropped_error',
  shutdown: 'dropped_shutdown',
};

export interface StartWorkerOptions {
  settings: Readonly<Settings>;
  log: Logger;
  components: Components;
  locations: readonly string[];
  concurrency: number;
  hooks?: readonly RunFinishedHook[];
  /** Told how late each scheduled run started (start minus due time, ms). */
  onScheduledStart?: (driftMs: number, location: string) => void;
  /** Told of each job given up for good (meerkat_runs_dropped_total). */
  onDropped?: ConsumeOptions['onDropped'];
  /** Where the admission's gauges (meerkat_worker_slots_held, meerkat_worker_admission) go. */
  registry?: Registry;
}

/**
 * Consumes `runs:<location>` for each location served. SIGTERM (close) stops taking jobs, lets in-flight runs
 * finish for SHUTDOWN_GRACE_SECONDS, then aborts them: they are recorded failed, saying the worker shut down.
 */
export function startWorker(options: StartWorkerOptions): { close(): Promise<void> } {
  const { settings, log, components } = options;
  const shutdown = new AbortController();
  // Every run in flight listens for the shutdown: that is up to `concurrency` listeners, not a leak.
  setMaxListeners(options.concurrency + 10, shutdown.signal);
  // A pooled connection opened under one location's egress policy must never serve another's runs, so each
  // distinct policy gets a runner (and Agent) of its own; locations without an override share the global one.
  const egress = egressPoliciesOf(settings);
  // What the worker takes on: WORKER_CONCURRENCY checks under way across every location it serves, and
  // WORKER_MAX_HELD_SLOTS slots held (docs/adr/0044-one-door-per-concern.md).
  const admission = createAdmission({
    checks: options.concurrency,
    heldSlots: settings.WORKER_MAX_HELD_SLOTS,
  });
  const runners = new Map<EgressPolicy, { runner: MonitorRunner; executor: LocationExecutor }>();
  // Every monitor's definition, read ahead and kept fresh, so that while PostgreSQL is away each check runs at
  // its time on whichever worker takes it.
  const monitors = createMonitorReader(components.db);
  const warmFailed = (error: unknown) =>
    log.debug({ reason: shortReason(error) }, 'reading monitor definitions ahead failed');
  void monitors.warm().catch(warmFailed);
  const warming = startPeriodic(() => monitors.warm(), MONITOR_WARM_MS, warmFailed);
  const executorFor = (location: string): LocationExecutor => {
    const policy = egress.forLocation(location);
    const existing = runners.get(policy);
    if (existing !== undefined) return existing.executor;
    const runner = createMonitorRunner({
      requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
      runTimeoutMs: settings.RUN_TIMEOUT_MS,
      assertionBudgetMs: settings.ASSERTION_BUDGET_MS,
      egress: policy,
    });
    const executor = createWorkerExecutor({
      db: components.db,
      runner,
      secrets: components.secrets,
      clock: systemClock,
      log,
      hooks: options.hooks ?? [],
      detailsAtInsert: settings.RUN_DETAILS_AT_INSERT,
      writeGatherMs: settings.RUN_WRITE_GATHER_MS,
      checks: admission.checks,
      awaitWrite: admission.awaitWrite,
      monitors,
    });
    runners.set(policy, { runner, executor });
    return executor;
  };
  const executors = new Map<string, LocationExecutor>();
  for (const location of settings.LOCATIONS) {
    if (options.locations.includes(location.name) && location.executor === 'worker')
      executors.set(location.name, executorFor(location.name));
  }
  const handler = createRunJobHandler({
    db: components.db,
    executors,
    log,
    signal: shutdown.signal,
    ...(options.onScheduledStart ? { onScheduledStart: options.onScheduledStart } : {}),
  });
  // Results whose write found the database away, given back by the queue: each to its location's executor.
  const writeResults = async (results: readonly HandedOverResult[]) => {
    const byLocation = new Map<string, HandedOverResult[]>();
    for (const result of results)
      byLocation.set(result.location, [...(byLocation.get(result.location) ?? []), result]);
    await Promise.all(
      [...byLocation].map(async ([location, part]) => {
        const executor = executors.get(location);
        if (executor?.writeHandedOver === undefined)
          throw new Error(`no executor writes results of ${location}`);
        await executor.writeHandedOver(part);
      }),
    );
  };
  // Slots that will never have a run are gaps of the slot ledger (docs/adr/0025-slot-ledger.md).
  const gaps = createGapRecorder({ db: components.db, log });
  const onSkipped: ConsumeOptions['onSkipped'] = (slots, reason) =>
    gaps.record(
      slots.map(({ data, slotMs }) => ({
        organizationId: data.organizationId,
        monitorId: data.monitorId,
        location: data.location,
        slotMs,
        reason: SKIP_GAPS[reason],
      })),
    );
  const onDropped: ConsumeOptions['onDropped'] = (job, reason) => {
    options.onDropped?.(job, reason);
    if (job.slot === undefined || job.data.runId !== undefined) return;
    const { organizationId, monitorId, location } = job.data;
    gaps.record([
      { organizationId, monitorId, location, slotMs: Number(job.slot), reason: DROP_GAPS[reason] },
    ]);
  };
  const consumer = components.runQueue.consume([...executors.keys()], handler, {
    admission,
    writeResults,
    onSkipped,
    onDropped,
  });
  if (options.registry !== undefined) registerAdmissionMetrics(options.registry, admission);
  const reaper = startRunReaper({ settings, db: components.db, log, hooks: options.hooks ?? [] });
  log.info({ locations: [...executors.keys()], concurrency: options.concurrency }, 'worker consuming runs');

  return {
    async close() {
      // In-flight runs get most of the grace; the rest records the ones cut short before the hard deadline.
      const abortLater = setTimeout(
        () => shutdown.abort(),
        drainPartOfGraceMs(settings.SHUTDOWN_GRACE_SECONDS),
      );
      await consumer.close();
      clearTimeout(abortLater);
      await reaper.stop();
      await warming.stop();
      await gaps.close();
      await Promise.all([...runners.values()].map(({ runner }) => runner.close()));
    },
  };
}
