import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble } from '../server/assemble.js';
import { loadOrCreateDevCredentials } from '../server/dev-credentials.js';
import { closeOnSignals } from '../server/serve-api.js';

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description(
      'everything in one process for a laptop: API on 127.0.0.1:3000, embedded database, a ready key',
    )
    .action(async () => {
      const settings = loadSettings(process.env, 'dev');
      const log = createLogger(settings.LOG_LEVEL, { process: 'dev' });
      const credentials = loadOrCreateDevCredentials(settings.MEERKAT_DATA_DIR);
      const useDevKey = settings.AUTH_MODE === 'api-key' && settings.AUTH_API_KEYS.length === 0;
      // Every role in one process, through the function that assembles the others.
      const dev = await assemble({
        process: 'dev',
        roles: ['api', 'scheduling', 'checking', 'dispatching', 'notifying'],
        settings,
        log,
        locations: settings.LOCATIONS.map((location) => location.name),
        concurrency: settings.WORKER_CONCURRENCY,
        open: { migrate: true, secretsKey: settings.SECRETS_KEY ?? credentials.secretsKey },
        extraApiKeys: useDevKey ? [credentials.entry] : [],
      });
      closeOnSignals(dev, log, settings.SHUTDOWN_GRACE_SECONDS);
      const url = dev.api?.url ?? '';
      const lines = [
        '',
        `Meerkat dev hub on ${url} (${dev.components.database.description})`,
        ...(useDevKey
          ? [
              `API key (organization "${credentials.entry.organizationId}", role admin${credentials.created ? ', created now' : ''}): ${credentials.apiKey}`,
              `Try: curl -H "Authorization: Bearer ${credentials.apiKey}" ${url}/connections`,
            ]
          : [`Authentication: AUTH_MODE=${settings.AUTH_MODE} with the configured keys or issuer.`]),
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });
}
