import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { openComponents } from '../server/components.js';
import { closeOnSignals, serveApi } from '../server/serve-api.js';

export function registerHubCommand(program: Command): void {
  program
    .command('hub')
    .description('serve the REST API (stateless; run N replicas)')
    .action(async () => {
      const settings = loadSettings(process.env, 'hub');
      const log = createLogger(settings.LOG_LEVEL, { process: 'hub' });
      const components = await openComponents(settings, log, {
        migrate: false,
        secretsKey: settings.SECRETS_KEY ?? '',
      });
      const api = await serveApi({ settings, log, components });
      closeOnSignals(
        {
          close: async () => {
            await api.close();
            await components.close();
          },
        },
        log,
      );
    });
}
