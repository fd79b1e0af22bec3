import type { Command } from 'commander';
import type { Monitor } from '../contract/monitor-definition.js';
import type { HubClient } from '../client/hub-client.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { identityKey } from './monitor-documents.js';
import { findMonitor, monitorsDefinedIn, type MonitorScope } from './monitor-lookup.js';

interface DeleteOptions extends HubOptions, MonitorScope {
  filename: string[];
  all?: boolean;
  ignoreNotFound?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];
const MONITOR_TYPES = new Set(['monitor', 'monitors', 'mon']);

/** What to delete: the monitors named, the ones the files define, or every monitor of --project with --all. */
async function chosenMonitors(
  hub: HubClient,
  names: string[],
  options: DeleteOptions,
): Promise<{ found: Monitor[]; missing: string[]; windowNames: string[] }> {
  const found: Monitor[] = [];
  const missing: string[] = [];
  if (options.all === true) return { found: await hub.listMonitors(options), missing, windowNames: [] };
  for (const name of names) {
    const monitor = await findMonitor(hub, name, options).catch((error: unknown) => {
      if (error instanceof CommandFailure && error.exitCode === ExitCode.failed) return undefined;
      throw error;
    });
    if (monitor === undefined) missing.push(`monitor "${name}"`);
    else found.push(monitor);
  }
  if (options.filename.length === 0) return { found, missing, windowNames: [] };
  const fromFiles = await monitorsDefinedIn(hub, options.filename);
  found.push(...fromFiles.found);
  missing.push(...fromFiles.missing.map((identity) => `monitor ${identity}`));
  return { found, missing, windowNames: fromFiles.windowNames };
}

/** Deletes the maintenance windows -f files define (after their monitors); the names the hub has not are returned. */
async function deleteWindows(hub: HubClient, names: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of new Set(names)) {
    if ((await hub.getMaintenanceWindow(name)) === undefined) {
      missing.push(`maintenance window "${name}"`);
      continue;
    }
    await hub.deleteMaintenanceWindow(name);
    process.stdout.write(`maintenancewindow ${name} deleted\n`);
  }
  return missing;
}

export function registerDeleteCommand(program: Command): void {
  const command = program
    .command('delete [type] [names...]')
    .description(
      'delete monitors by name or id (delete monitor NAME...), the ones -f files define, or all of a ' +
        'project (delete monitors --project P --all)',
    )
    .option(
      '-f, --filename <path>',
      'the monitors and maintenance windows these files define; - for standard input',
      collect,
      [],
    )
    .option('--project <project>', 'the project of --all, or of a name used in several projects')
    .option('--environment <environment>', 'narrows --all, or a name used in several environments')
    .option('--all', 'every monitor of --project')
    .option('--ignore-not-found', 'exit 0 when what was named is not there');
  hubOptions(command).action(async (type: string | undefined, names: string[], options: DeleteOptions) => {
    if (type !== undefined && !MONITOR_TYPES.has(type))
      throw new CommandFailure(ExitCode.usage, `unknown resource type "${type}": only monitors are deleted`);
    if (options.all === true && (options.project === undefined || names.length > 0))
      throw new CommandFailure(ExitCode.usage, '--all needs --project, and no names');
    if (names.length === 0 && options.filename.length === 0 && options.all !== true)
      throw new CommandFailure(ExitCode.usage, 'name monitors, give -f files, or --project with --all');
    const hub = connectToHub(options);
    const { found, missing, windowNames } = await chosenMonitors(hub, names, options);
    const unique = [...new Map(found.map((m) => [m.id, m])).values()];
    for (const monitor of unique) {
      await hub.deleteMonitor(monitor.id);
      process.stdout.write(`monitor ${identityKey(monitor)} deleted (${monitor.id})\n`);
    }
    missing.push(...(await deleteWindows(hub, windowNames)));
    if (options.all === true && unique.length === 0)
      process.stderr.write(`No monitors found in project ${options.project}.\n`);
    if (missing.length === 0 || options.ignoreNotFound === true) return;
    for (const what of missing) process.stderr.write(`meerkat: ${what} not found\n`);
    throw new CommandFailure(ExitCode.failed);
  });
}
