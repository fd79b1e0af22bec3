import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble, type Role } from '../server/assemble.js';
import { closeOnSignals } from '../server/serve-api.js';
import {
  servedLocationsOf,
  withServedLocationOptions,
  type ServedLocationOptions,
} from './served-locations.js';

export function registerHubCommand(program: Command): void {
  withServedLocationOptions(
    program
      .command('hub')
      .description(
        'serve the REST API (stateless; run N replicas); with --locations also serve those locations, as `meerkat worker` does',
      ),
    'optional',
  ).action(async (options: ServedLocationOptions) => {
    const settings = loadSettings(process.env, 'hub');
    const log = createLogger(settings.LOG_LEVEL, { process: 'hub' });
    if (options.locations === undefined && options.concurrency !== undefined) {
      program.error('meerkat hub: --concurrency needs --locations: the checks of which locations?');
    }
    // The API alone: the results runner Jobs report and heartbeats get the same hooks as a worker's, their
    // notifications delivered by the workers' notifiers. Runner Jobs are created by the workers of `job`
    // locations (docs/adr/0052-workers-dispatch-runner-jobs.md). With --locations the process is also a worker of
    // those, one process for a small release (docs/adr/0086-worker-in-the-hub.md).
    const served =
      options.locations === undefined ? undefined : servedLocationsOf(program, 'hub', settings, options);
    const roles: Role[] = [
      'api',
      ...(served?.roles ?? (options.withScheduler === true ? (['scheduling'] as const) : [])),
    ];
    const hub = await assemble({
      process: 'hub',
      roles,
      settings,
      log,
      ...(served === undefined ? {} : { locations: served.locations, concurrency: served.concurrency }),
      open: { migrate: false },
    });
    closeOnSignals(hub, log, settings.SHUTDOWN_GRACE_SECONDS);
  });
}
