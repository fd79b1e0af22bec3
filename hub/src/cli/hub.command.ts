import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble } from '../server/assemble.js';
import { closeOnSignals } from '../server/serve-api.js';

export function registerHubCommand(program: Command): void {
  program
    .command('hub')
    .description('serve the REST API (stateless; run N replicas)')
    .action(async () => {
      const settings = loadSettings(process.env, 'hub');
      const log = createLogger(settings.LOG_LEVEL, { process: 'hub' });
      // The API alone: the results runner Jobs report and heartbeats get the same hooks as a worker's, their
      // notifications delivered by the workers' notifiers. Runner Jobs are created by the workers of `job`
      // locations (docs/adr/0052-workers-dispatch-runner-jobs.md).
      const hub = await assemble({
        process: 'hub',
        roles: ['api'],
        settings,
        log,
        open: { migrate: false },
      });
      closeOnSignals(hub, log, settings.SHUTDOWN_GRACE_SECONDS);
    });
}
