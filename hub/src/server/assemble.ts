import type { Logger } from 'pino';
import type { ApiKeyEntry } from '../auth/api-keys.js';
import type { Settings } from '../config/settings.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import {
  createNotificationDeliveryMetrics,
  createNotificationOutboxDepthMetric,
} from '../notifications/notification-delivery-metrics.js';
import { createRunsDroppedMetric, registerDependencyMetrics } from '../metrics/prometheus/fault-metrics.js';
import { startProcessMetrics } from '../metrics/prometheus/process-metrics.js';
import { createScheduleDelayMetrics } from '../metrics/prometheus/schedule-delay-metrics.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import { startHeapBudget } from '../system/heap-budget.js';
import { openComponents, poolSizeFor, type Components, type OpenOptions } from './components.js';
import { startJobLocationsIfAny } from './job-locations-on-demand.js';
import { runFinishedHooks } from './run-finished-hooks.js';
import { serveApi, type RunningApi } from './serve-api.js';
import { startNotifier, startRuleEvaluation } from './start-notifier.js';
import { startScheduler } from './start-scheduler.js';
import { startWorker } from './start-worker.js';

/**
 * What a process does (docs/architecture.md): serve the API; keep the schedules; check, consuming the queues of
 * `worker` locations; dispatch runner Jobs, consuming the queues of `job` locations; deliver notifications.
 * `meerkat dev` is every role in one process.
 */
export type Role = 'api' | 'scheduling' | 'checking' | 'dispatching' | 'notifying';

export interface AssembleOptions {
  /** The process kind: the `process` label of its metrics and logs. */
  process: 'dev' | 'hub' | 'scheduler' | 'worker';
  roles: readonly Role[];
  settings: Readonly<Settings>;
  log: Logger;
  /**
   * The locations whose queues the process consumes: with `checking` the `worker` ones among them, with
   * `dispatching` the `job` ones. None when absent.
   */
  locations?: readonly string[];
  /** Checks under way at once: `meerkat worker --concurrency`; WORKER_CONCURRENCY when absent. */
  concurrency?: number;
  /** Whether the process migrates its database at start, and its secrets key when SECRETS_KEY is unset. */
  open: OpenOptions;
  /** API keys beside AUTH_API_KEYS (the dev key); none when absent. */
  extraApiKeys?: readonly ApiKeyEntry[];
}

export interface Assembled {
  components: Components;
  /** The API, with the `api` role. */
  api: RunningApi | undefined;
  /** Closes every part in the reverse order of its start. */
  close(): Promise<void>;
}

interface Part {
  close(): Promise<void>;
}

/** The names among `served` of the locations LOCATIONS gives `executor`, in LOCATIONS order. */
function servedOf(settings: Readonly<Settings>, served: readonly string[], executor: 'worker' | 'job') {
  return settings.LOCATIONS.filter((l) => l.executor === executor && served.includes(l.name)).map(
    (l) => l.name,
  );
}

/**
 * Builds the parts of a process for its roles, in this order: components, metrics, the notifier (or, for a
 * process that records results without delivering, rule evaluation alone), the workers' consumers, the runner
 * Job dispatcher, the scheduler, the API last (so the process answers only when the rest is up). One close
 * stops them in the reverse order: the API first, the components last. A start that fails throws, and the
 * command ends the process with one line naming the cause (cli/run-command.ts): nothing is closed first, as a
 * close can wait on the very dependency that failed.
 */
export async function assemble(options: AssembleOptions): Promise<Assembled> {
  const { settings, log, roles } = options;
  const served = options.locations ?? [];
  const has = (role: Role) => roles.includes(role);
  const parts: Part[] = [];
  const close = async () => {
    for (const part of parts.splice(0).reverse()) await part.close();
  };
  const started = <T extends Part>(part: T): T => {
    parts.push(part);
    return part;
  };
  // Every role of the process shares one pool, sized for what runs at once (docs/adr/0081).
  const open = { poolSize: poolSizeFor(roles), ...options.open };
  const components = started(await openComponents(settings, log, open));
  const metrics = started(await startProcessMetrics(options.process, settings, log));
  registerDependencyMetrics(metrics.registry, components.readiness);
  // Off unless HEAP_BUDGET_MIB or `meerkat dev` turns it on (docs/adr/0071).
  started(startHeapBudget(settings, metrics.registry, log));

  const checked = has('checking') ? servedOf(settings, served, 'worker') : [];
  const dispatched = has('dispatching') ? servedOf(settings, served, 'job') : [];
  // The locations whose results land here: what it checks or dispatches, and with the API what runner Jobs
  // report (every `job` location). The API records heartbeats' results too, so it always has hooks.
  const recorded = new Set([
    ...checked,
    ...dispatched,
    ...(has('api') ? settings.LOCATIONS.filter((l) => l.executor === 'job').map((l) => l.name) : []),
  ]);
  let hooks: readonly RunFinishedHook[] = [];
  if (has('notifying') || has('api') || recorded.size > 0) {
    const rules = started(
      has('notifying')
        ? await startNotifier({
            settings,
            log,
            components,
            egress: egressPoliciesOf(settings).global,
            onDeliveryAttempt: createNotificationDeliveryMetrics(metrics.registry),
            onOutboxDepth: createNotificationOutboxDepthMetric(metrics.registry),
          })
        : await startRuleEvaluation(settings, components, log),
    );
    // One list for every way a result lands in the process: its worker, runner Job reports, the Job watcher.
    hooks = runFinishedHooks(metrics.registry, rules.hook, {
      db: components.db,
      locations: settings.LOCATIONS.map((l) => l.name).filter((name) => recorded.has(name)),
    });
  }
  if (checked.length > 0) {
    started(
      startWorker({
        settings,
        log,
        components,
        locations: checked,
        concurrency: options.concurrency ?? settings.WORKER_CONCURRENCY,
        hooks,
        onScheduledStart: createScheduleDelayMetrics(metrics.registry),
        registry: metrics.registry,
        onDropped: createRunsDroppedMetric(metrics.registry, checked),
      }),
    );
  }
  if (dispatched.length > 0) {
    started(await startJobLocationsIfAny({ settings, log, components, hooks, locations: dispatched }));
  }
  if (has('scheduling'))
    started(await startScheduler({ settings, log, components, registry: metrics.registry }));
  const api = has('api')
    ? started(
        await serveApi({
          settings,
          log,
          components,
          metricsRegistry: metrics.registry,
          extraApiKeys: [...(options.extraApiKeys ?? [])],
          runFinishedHooks: hooks,
        }),
      )
    : undefined;
  return { components, api, close };
}
