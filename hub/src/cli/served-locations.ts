import type { Command } from 'commander';
import { workerConcurrencySchema, type Settings } from '../config/settings.js';
import type { Role } from '../server/assemble.js';

/** The options a process that serves locations takes: `meerkat worker`, and `meerkat hub --locations`. */
export interface ServedLocationOptions {
  locations?: string;
  concurrency?: string;
  withScheduler?: boolean;
}

/** Adds `--locations`, `--concurrency` and `--with-scheduler` to a command; `locations` says whether it is required. */
export function withServedLocationOptions(command: Command, locations: 'required' | 'optional'): Command {
  const names = 'comma-separated locations to serve (any of LOCATIONS)';
  return (
    locations === 'required'
      ? command.requiredOption('--locations <names>', names)
      : command.option('--locations <names>', names)
  )
    .option('--concurrency <n>', 'checks under way at once (default WORKER_CONCURRENCY)')
    .option(
      '--with-scheduler',
      'also keep the schedules, as `meerkat scheduler` does, instead of a scheduler process (in several processes, one schedules and the others stand by)',
    );
}

export interface ServedLocations {
  locations: string[];
  concurrency: number;
  /** What serving them takes: notifying, checking `worker` locations, dispatching `job` ones, and scheduling. */
  roles: Role[];
}

/**
 * Reads the options of a process that serves locations against LOCATIONS, ending the program with a message
 * naming the command and the option when one is wrong.
 */
export function servedLocationsOf(
  program: Command,
  command: string,
  settings: Readonly<Settings>,
  options: ServedLocationOptions,
): ServedLocations {
  const locations = (options.locations ?? '')
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const configured = settings.LOCATIONS.map((l) => l.name);
  const unknown = locations.filter((l) => !configured.includes(l));
  if (unknown.length > 0 || locations.length === 0) {
    program.error(
      `meerkat ${command}: --locations: ${unknown.join(', ') || '(none)'} not among the locations of LOCATIONS (${configured.join(', ')})`,
    );
  }
  const concurrency =
    options.concurrency === undefined
      ? settings.WORKER_CONCURRENCY
      : workerConcurrencySchema.safeParse(options.concurrency).data;
  if (concurrency === undefined) {
    program.error(`meerkat ${command}: --concurrency must be an integer from 1 to 1000`);
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
  return { locations, concurrency, roles };
}
