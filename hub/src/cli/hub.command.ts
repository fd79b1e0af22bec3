import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { startJobLocationsIfAny } from '../server/job-locations-on-demand.js';
import { createLogger } from '../log/logger.js';
import { registerDependencyMetrics } from '../metrics/prometheus/fault-metrics.js';
import { startProcessMetrics } from '../metrics/prometheus/process-metrics.js';
import { startRuleEvaluation } from '../server/start-notifier.js';
import { openComponents } from '../server/components.js';
import { runFinishedHooks } from '../server/run-finished-hooks.js';
import { closeOnSignals, serveApi } from '../server/serve-api.js';

export function registerHubCommand(program: Command): void {
  program
    .command('hub')
    .description('serve the REST API (stateless; run N replicas)')
    .action(async () => {
      const settings = loadSettings(process.env, 'hub');
      const log = createLogger(settings.LOG_LEVEL, { process: 'hub' });
      const components = await openComponents(settings, log, { migrate: false });
      const metrics = await startProcessMetrics('hub', settings, log);
      registerDependencyMetrics(metrics.registry, components.readiness);
      // The hub records the results of runner Jobs (their reports, and the failures its Job watcher sees):
      // they get the same rollups, rule evaluation and counters as results recorded by workers.
      const rules = startRuleEvaluation(settings, components, log);
      const hooks = runFinishedHooks(metrics.registry, rules.hook, {
        db: components.db,
        locations: settings.LOCATIONS.filter((l) => l.executor === 'job').map((l) => l.name),
      });
      const api = await serveApi({
        settings,
        log,
        components,
        metricsRegistry: metrics.registry,
        runFinishedHooks: hooks,
      });
      const jobs = await startJobLocationsIfAny({ settings, log, components, hooks });
      closeOnSignals(
        {
          close: async () => {
            await api.close();
            await jobs.close();
            await rules.close();
            await metrics.close();
            await components.close();
          },
        },
        log,
        settings.SHUTDOWN_GRACE_SECONDS,
      );
    });
}
