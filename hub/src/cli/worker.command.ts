import type { Command } from 'commander';
import { workerLocationNames } from '../config/locations.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import { loadSettings, workerConcurrencySchema } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import {
  createNotificationDeliveryMetrics,
  createNotificationOutboxDepthMetric,
} from '../notifications/notification-delivery-metrics.js';
import { createRunsDroppedMetric, registerDependencyMetrics } from '../metrics/prometheus/fault-metrics.js';
import { startProcessMetrics } from '../metrics/prometheus/process-metrics.js';
import { createScheduleDelayMetrics } from '../metrics/prometheus/schedule-delay-metrics.js';
import { startNotifier } from '../server/start-notifier.js';
import { openComponents } from '../server/components.js';
import { runFinishedHooks } from '../server/run-finished-hooks.js';
import { closeOnSignals } from '../server/serve-api.js';
import { startWorker } from '../server/start-worker.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('execute runs for the locations served (queues runs:<location>)')
    .requiredOption('--locations <names>', 'comma-separated locations to serve (executor: worker)')
    .option('--concurrency <n>', 'checks under way at once (default WORKER_CONCURRENCY)')
    .action(async (options: { locations: string; concurrency?: string }) => {
      const settings = loadSettings(process.env, 'worker');
      const log = createLogger(settings.LOG_LEVEL, { process: 'worker' });
      const locations = options.locations
        .split(',')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      const configured = workerLocationNames(settings.LOCATIONS);
      const unknown = locations.filter((l) => !configured.includes(l));
      if (unknown.length > 0 || locations.length === 0) {
        program.error(
          `meerkat worker: --locations: ${unknown.join(', ') || '(none)'} not among the worker locations of LOCATIONS (${configured.join(', ')})`,
        );
      }
      const concurrency =
        options.concurrency === undefined
          ? settings.WORKER_CONCURRENCY
          : workerConcurrencySchema.safeParse(options.concurrency).data;
      if (concurrency === undefined) {
        program.error('meerkat worker: --concurrency must be an integer from 1 to 1000');
      }
      const components = await openComponents(settings, log, { migrate: false });
      const metrics = await startProcessMetrics('worker', settings, log);
      registerDependencyMetrics(metrics.registry, components.readiness);
      const notifier = startNotifier({
        settings,
        log,
        components,
        egress: egressPoliciesOf(settings).global,
        onDeliveryAttempt: createNotificationDeliveryMetrics(metrics.registry),
        onOutboxDepth: createNotificationOutboxDepthMetric(metrics.registry),
      });
      const worker = startWorker({
        settings,
        log,
        components,
        locations,
        concurrency,
        hooks: runFinishedHooks(metrics.registry, notifier.hook, { db: components.db, locations }),
        onScheduledStart: createScheduleDelayMetrics(metrics.registry),
        registry: metrics.registry,
        onDropped: createRunsDroppedMetric(metrics.registry, locations),
      });
      closeOnSignals(
        {
          close: async () => {
            await worker.close();
            await notifier.close();
            await metrics.close();
            await components.close();
          },
        },
        log,
        settings.SHUTDOWN_GRACE_SECONDS,
      );
    });
}
