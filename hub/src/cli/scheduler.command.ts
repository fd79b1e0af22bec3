import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { registerDependencyMetrics } from '../metrics/prometheus/fault-metrics.js';
import { startProcessMetrics } from '../metrics/prometheus/process-metrics.js';
import { startScheduler } from '../server/start-scheduler.js';
import { openComponents } from '../server/components.js';
import { closeOnSignals } from '../server/serve-api.js';

export function registerSchedulerCommand(program: Command): void {
  program
    .command('scheduler')
    .description('keep one schedule per (monitor, location) in Redis; delete runs past their retention')
    .action(async () => {
      const settings = loadSettings(process.env, 'scheduler');
      const log = createLogger(settings.LOG_LEVEL, { process: 'scheduler' });
      const components = await openComponents(settings, log, { migrate: false });
      const metrics = await startProcessMetrics('scheduler', settings, log);
      registerDependencyMetrics(metrics.registry, components.readiness);
      const scheduler = await startScheduler({ settings, log, components });
      closeOnSignals(
        {
          close: async () => {
            await scheduler.close();
            await metrics.close();
            await components.close();
          },
        },
        log,
        settings.SHUTDOWN_GRACE_SECONDS,
      );
    });
}
