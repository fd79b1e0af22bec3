import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble } from '../server/assemble.js';
import { closeOnSignals } from '../server/serve-api.js';
import {
  servedLocationsOf,
  withServedLocationOptions,
  type ServedLocationOptions,
} from './served-locations.js';

export function registerWorkerCommand(program: Command): void {
  withServedLocationOptions(
    program
      .command('worker')
      .description(
        'serve locations: run the checks of `worker` ones, create the runner Jobs of `job` ones (queues runs:<location>)',
      ),
    'required',
  ).action(async (options: ServedLocationOptions) => {
    const settings = loadSettings(process.env, 'worker');
    const log = createLogger(settings.LOG_LEVEL, { process: 'worker' });
    const { locations, concurrency, roles } = servedLocationsOf(program, 'worker', settings, options);
    const worker = await assemble({
      process: 'worker',
      roles,
      settings,
      log,
      locations,
      concurrency,
      open: { migrate: false },
    });
    closeOnSignals(worker, log, settings.SHUTDOWN_GRACE_SECONDS);
  });
}
