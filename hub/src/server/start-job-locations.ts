import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import { recordRunResult, type RunFinishedHook } from '../runs/run-finished.js';
import type { Components } from './components.js';
import { createAdmission } from '../worker/admission.js';
import { createRunJobHandler } from '../worker/run-job-handler.js';
import { createJobExecutor } from '../jobs/job-executor.js';
import { batchApiFor, kubeConfigFor } from '../jobs/kube-clients.js';
import { watchRunnerJobs } from '../jobs/runner-job-watcher.js';

const DISPATCH_CONCURRENCY = 20;

/**
 * The dispatching role of a worker of `job` locations (docs/adr/0052-workers-dispatch-runner-jobs.md): consumes
 * the queues of `locations` (those of them LOCATIONS gives the `job` executor), creates a runner Job per run and
 * watches those Jobs, recording the runs of Jobs that fail before their runner reports. Does nothing when none
 * of `locations` is a `job` location.
 */
export function startJobLocations(options: {
  settings: Readonly<Settings>;
  log: Logger;
  components: Components;
  /** The locations served; the `job` ones among them are dispatched. */
  locations: readonly string[];
  hooks: readonly RunFinishedHook[];
}): { close(): Promise<void> } {
  const { settings, log, components, hooks } = options;
  const executors = new Map<string, LocationExecutor>();
  const watchers: Array<{ stop(): Promise<void> }> = [];
  const egress = egressPoliciesOf(settings);
  // Jobs created at once: the admission's check places; what it holds is bounded as a worker's is.
  const admission = createAdmission({
    checks: DISPATCH_CONCURRENCY,
    heldSlots: settings.WORKER_MAX_HELD_SLOTS,
  });
  for (const location of settings.LOCATIONS) {
    if (location.executor !== 'job' || !options.locations.includes(location.name)) continue;
    const kubeConfig = kubeConfigFor(location.job);
    const batch = batchApiFor(kubeConfig);
    const dispatch = createJobExecutor({
      batch,
      template: location.job,
      runTimeoutMs: settings.RUN_TIMEOUT_MS,
      egressEnvironment: egress.environmentFor(location.name),
      log,
    });
    executors.set(location.name, {
      async execute(run, signal) {
        try {
          await admission.checks.run(() => dispatch.execute(run, signal), run.organization_id);
        } catch (error) {
          // A Job the cluster refuses (RBAC, quota, a bad template) will not be accepted on a retry either.
          const message = error instanceof Error ? error.message : String(error);
          await recordRunResult(
            components.db,
            run,
            { success: false, errors: [message], steps: null, completedAt: new Date(), durationMs: null },
            hooks,
          );
        }
      },
    });
    watchers.push(
      watchRunnerJobs({
        kubeConfig,
        batch,
        namespace: location.job.namespace,
        db: components.db,
        hooks,
        log,
      }),
    );
  }
  if (executors.size === 0) return { close: () => Promise.resolve() };

  const shutdown = new AbortController();
  const handler = createRunJobHandler({ db: components.db, executors, log, signal: shutdown.signal });
  const consumer = components.runQueue.consume([...executors.keys()], handler, { admission });
  log.info({ locations: [...executors.keys()] }, 'dispatching runner Jobs');
  return {
    async close() {
      await consumer.close();
      await Promise.all(watchers.map((w) => w.stop()));
    },
  };
}
