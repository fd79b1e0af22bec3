import type { Command } from 'commander';
import { workerLocationNames } from '../config/locations.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import {
  createNotificationDeliveryMetrics,
  createNotificationOutboxDepthMetric,
} from '../notifications/notification-delivery-metrics.js';
import { startProcessMetrics } from '../metrics/prometheus/process-metrics.js';
import { createScheduleDelayMetrics } from '../metrics/prometheus/schedule-delay-metrics.js';
import { startNotifier } from '../server/start-notifier.js';
import { loadOrCreateDevCredentials } from '../server/dev-credentials.js';
import { startJobLocationsIfAny } from '../server/job-locations-on-demand.js';
import { startScheduler } from '../server/start-scheduler.js';
import { openComponents } from '../server/components.js';
import { runFinishedHooks } from '../server/run-finished-hooks.js';
import { closeOnSignals, serveApi } from '../server/serve-api.js';
import { startWorker } from '../server/start-worker.js';

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description(
      'everything in one process for a laptop: API on 127.0.0.1:3000, embedded database, a ready key',
    )
    .action(async () => {
      const settings = loadSettings(process.env, 'dev');
      const log = createLogger(settings.LOG_LEVEL, { process: 'dev' });
      const dev = loadOrCreateDevCredentials(settings.MEERKAT_DATA_DIR);
      const useDevKey = settings.AUTH_MODE === 'api-key' && settings.AUTH_API_KEYS.length === 0;
      const components = await openComponents(settings, log, {
        migrate: true,
        secretsKey: settings.SECRETS_KEY ?? dev.secretsKey,
      });
      const metrics = await startProcessMetrics('dev', settings, log);
      const notifier = startNotifier({
        settings,
        log,
        components,
        egress: egressPoliciesOf(settings).global,
        onDeliveryAttempt: createNotificationDeliveryMetrics(metrics.registry),
        onOutboxDepth: createNotificationOutboxDepthMetric(metrics.registry),
      });
      // One list for every way a result lands here: the worker, runner Job reports, the Job watcher.
      const hooks = runFinishedHooks(metrics.registry, notifier.hook, {
        db: components.db,
        locations: settings.LOCATIONS.map((location) => location.name),
      });
      const running = await serveApi({
        settings,
        log,
        components,
        metricsRegistry: metrics.registry,
        extraApiKeys: useDevKey ? [dev.entry] : [],
        runFinishedHooks: hooks,
      });
      const scheduler = await startScheduler({ settings, log, components });
      const jobs = await startJobLocationsIfAny({ settings, log, components, hooks });
      const worker = startWorker({
        hooks,
        onScheduledStart: createScheduleDelayMetrics(metrics.registry),
        registry: metrics.registry,
        settings,
        log,
        components,
        locations: workerLocationNames(settings.LOCATIONS),
        concurrency: settings.WORKER_CONCURRENCY,
      });
      closeOnSignals(
        {
          close: async () => {
            await running.close();
            await scheduler.close();
            await jobs.close();
            await worker.close();
            await notifier.close();
            await metrics.close();
            await components.close();
          },
        },
        log,
        settings.SHUTDOWN_GRACE_SECONDS,
      );
      const lines = [
        '',
        `Meerkat dev hub on ${running.url} (${components.database.description})`,
        ...(useDevKey
          ? [
              `API key (organization "${dev.entry.organizationId}", role admin${dev.created ? ', created now' : ''}): ${dev.apiKey}`,
              `Try: curl -H "Authorization: Bearer ${dev.apiKey}" ${running.url}/connections`,
            ]
          : [`Authentication: AUTH_MODE=${settings.AUTH_MODE} with the configured keys or issuer.`]),
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });
}
