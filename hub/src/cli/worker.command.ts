import type { Command } from 'commander';
import { loadSettings, workerConcurrencySchema } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { assemble, type Role } from '../server/assemble.js';
import { closeOnSignals } from '../server/serve-api.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'serve locations: run the checks of `worker` ones, create the runner Jobs of `job` ones (queues runs:<location>)',
    )
    .requiredOption('--locations <names>', 'comma-separated locations to serve (any of LOCATIONS)')
    .option('--concurrency <n>', 'checks under way at once (default WORKER_CONCURRENCY)')
    .option(
      '--with-scheduler',
      'also keep the schedules, as `meerkat scheduler` does, instead of a scheduler process (in several processes, one schedules and the others stand by)',
    )
    .action(async (options: { locations: string; concurrency?: string; withScheduler?: boolean }) => {
      const settings = loadSettings(process.env, 'worker');
      const log = createLogger(settings.LOG_LEVEL, { process: 'worker' });
      const locations = options.locations
        .split(',')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      const configured = settings.LOCATIONS.map((l) => l.name);
      const unknown = locations.filter((l) => !configured.includes(l));
      if (unknown.length > 0 || locations.length === 0) {
        program.error(
          `meerkat worker: --locations: ${unknown.join(', ') || '(none)'} not among the locations of LOCATIONS (${configured.join(', ')})`,
        );
      }
      const concurrency =
        options.concurrency === undefined
          ? settings.WORKER_CONCURRENCY
          : workerConcurrencySchema.safeParse(options.concurrency).data;
      if (concurrency === undefined) {
        program.error('meerkat worker: --concurrency must be an integer from 1 to 1000');
      }
      const executors = new Set(
        settings.LOCATIONS.filter((l) => locations.includes(l.name)).map((l) => l.executor),
      );
      const roles: Role[] = [
        'notifying',
        ...(executors.has('worker') ? (['checking'] as const) : []),
        ...(executors.has('job') ? (['dispatching'] as const) : []),
      ];
      // One process fewer for a small release (docs/adr/0067-scheduler-in-a-worker.md).
      if (options.withScheduler === true) roles.push('scheduling');
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
