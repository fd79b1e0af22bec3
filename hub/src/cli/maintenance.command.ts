import type { Command } from 'commander';
import type { HubClient } from '../client/hub-client.js';
import type { MaintenanceSchedule } from '../contract/maintenance-definition.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { windowColumns, windowManifest } from './maintenance-columns.js';
import { matcherOptions, matchersOf, type MatcherFlags } from './matcher-arguments.js';
import { listingOf, listingOptions, printItems, type ListingOptions } from './output-format.js';

interface CreateOptions extends HubOptions, MatcherFlags {
  cron?: string;
  rrule?: string;
  timezone?: string;
  start?: string;
  until?: string;
  duration?: string;
  description?: string;
  countInFigures?: boolean;
}

const UNIT_MINUTES = { d: 1440, h: 60, m: 1 } as const;
const isUnit = (unit: string | undefined): unit is keyof typeof UNIT_MINUTES =>
  unit !== undefined && Object.hasOwn(UNIT_MINUTES, unit);

/** `3h` or `1d12h` -> minutes, as the hub reads a silence's duration. */
function minutesOf(duration: string): number {
  if (!/^(\d{1,4}[dhm])+$/.test(duration))
    throw new CommandFailure(
      ExitCode.usage,
      `--duration ${duration} is not a duration such as 90m, 3h or 1d12h`,
    );
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)([dhm])/g))
    if (isUnit(unit)) total += Number(amount) * UNIT_MINUTES[unit];
  return total;
}

/** An RRULE schedule: from --start (default now, to the minute) in --timezone, each lasting --duration. */
function ruleScheduleOf(rrule: string, options: CreateOptions): MaintenanceSchedule {
  if (options.timezone === undefined || options.duration === undefined || options.until !== undefined)
    throw new CommandFailure(ExitCode.usage, '--rrule needs --timezone and --duration (and no --until)');
  const startsAt = options.start ?? new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
  const durationMinutes = minutesOf(options.duration);
  return { type: 'rrule', rrule, startsAt, timezone: options.timezone, durationMinutes };
}

/**
 * A recurring schedule from --cron or --rrule with --timezone and --duration, or a one-off from --start and
 * --until/--duration.
 */
function scheduleOf(options: CreateOptions): MaintenanceSchedule {
  if (options.cron !== undefined && options.rrule !== undefined)
    throw new CommandFailure(ExitCode.usage, 'give --cron or --rrule, not both');
  if (options.rrule !== undefined) return ruleScheduleOf(options.rrule, options);
  if (options.cron !== undefined) {
    if (options.timezone === undefined || options.duration === undefined || options.until !== undefined)
      throw new CommandFailure(ExitCode.usage, '--cron needs --timezone and --duration (and no --until)');
    return {
      type: 'cron',
      cron: options.cron,
      timezone: options.timezone,
      durationMinutes: minutesOf(options.duration),
    };
  }
  if (options.start === undefined || (options.until === undefined) === (options.duration === undefined))
    throw new CommandFailure(
      ExitCode.usage,
      'give --cron or --rrule with --timezone and --duration, or --start with --until or --duration',
    );
  const start = Date.parse(options.start);
  if (Number.isNaN(start))
    throw new CommandFailure(ExitCode.usage, `--start ${options.start} is not an ISO 8601 time`);
  const endsAt = options.until ?? new Date(start + minutesOf(options.duration ?? '') * 60_000).toISOString();
  return { type: 'once', startsAt: options.start, endsAt };
}

/** `get maintenancewindows` and `maintenance list`: every window with its current and next occurrence, or one. */
export async function printWindows(
  hub: HubClient,
  name: string | undefined,
  options: ListingOptions,
): Promise<void> {
  const all = await hub.listMaintenanceWindows();
  const chosen = name === undefined ? all : all.filter((w) => w.name === name || w.id === name);
  if (name !== undefined && chosen.length === 0)
    throw new CommandFailure(ExitCode.failed, `maintenance window "${name}" not found`);
  printItems(chosen, {
    ...listingOf(options),
    kind: 'maintenancewindow',
    plural: 'maintenance windows',
    columns: windowColumns(new Date()),
    single: name !== undefined,
    manifest: windowManifest,
    nameOf: (w) => w.name,
  });
}

function registerCreate(maintenance: Command): void {
  const create = matcherOptions(maintenance.command('create <name> [matchers...]'))
    .description(
      'create or replace a named window: recurring (--cron or --rrule, --timezone, --duration) or once (--start with ' +
        '--until or --duration); matchers as for `silence create`',
    )
    .option('--cron <expression>', 'when each occurrence starts: five fields, e.g. "0 23 * * 6"')
    .option(
      '--rrule <rule>',
      'when each occurrence starts: an RFC 5545 rule, e.g. "FREQ=WEEKLY;BYDAY=SA;BYHOUR=22"',
    )
    .option(
      '--timezone <zone>',
      'the IANA time zone the cron expression or rule is read in, e.g. Europe/Berlin',
    )
    .option(
      '--start <time>',
      'a one-off window: its start, an ISO 8601 time; with --rrule, its first (default now)',
    )
    .option('--until <time>', 'a one-off window: its end')
    .option('-d, --duration <duration>', 'how long each occurrence lasts, e.g. 90m, 3h')
    .option('--description <text>', 'what the window is for')
    .option('--count-in-figures', 'keep its runs in uptime and success-rate figures (default: left out)');
  hubOptions(create).action(async (name: string, args: string[], options: CreateOptions) => {
    const definition = {
      name,
      matchers: matchersOf(args, options),
      schedule: scheduleOf(options),
      excludeFromFigures: options.countInFigures !== true,
      ...(options.description === undefined ? {} : { description: options.description }),
    };
    const hub = connectToHub(options);
    const existed = (await hub.getMaintenanceWindow(name)) !== undefined;
    const window = await hub.putMaintenanceWindow(definition);
    process.stdout.write(`maintenancewindow ${window.name} ${existed ? 'replaced' : 'created'}\n`);
  });
}

export function registerMaintenanceCommand(program: Command): void {
  const maintenance = program
    .command('maintenance')
    .description('planned maintenance windows: notifications held, runs left out of figures');
  hubOptions(listingOptions(maintenance.command('list [name]').alias('ls')))
    .description('windows with the occurrence in force and the next one; one by name')
    .action(async (name: string | undefined, options: HubOptions & ListingOptions) =>
      printWindows(connectToHub(options), name, options),
    );
  registerCreate(maintenance);
  hubOptions(maintenance.command('delete <names...>').alias('rm'))
    .description('delete windows by name')
    .option('--ignore-not-found', 'exit 0 when a window is not there')
    .action(async (names: string[], options: HubOptions & { ignoreNotFound?: boolean }) => {
      const hub = connectToHub(options);
      let missing = 0;
      for (const name of names) {
        if ((await hub.getMaintenanceWindow(name)) === undefined) {
          missing += 1;
          if (options.ignoreNotFound !== true)
            process.stderr.write(`meerkat: maintenance window "${name}" not found\n`);
          continue;
        }
        await hub.deleteMaintenanceWindow(name);
        process.stdout.write(`maintenancewindow ${name} deleted\n`);
      }
      if (missing > 0 && options.ignoreNotFound !== true) throw new CommandFailure(ExitCode.failed);
    });
}
