import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble } from '../server/assemble.js';
import { closeOnSignals } from '../server/serve-api.js';

export function registerSchedulerCommand(program: Command): void {
  program
    .command('scheduler')
    .description('keep one schedule per (monitor, location) in Redis; delete runs past their retention')
    .action(async () => {
      const settings = loadSettings(process.env, 'scheduler');
      const log = createLogger(settings.LOG_LEVEL, { process: 'scheduler' });
      const scheduler = await assemble({
        process: 'scheduler',
        roles: ['scheduling'],
        settings,
        log,
        open: { migrate: false },
      });
      closeOnSignals(scheduler, log, settings.SHUTDOWN_GRACE_SECONDS);
    });
}
