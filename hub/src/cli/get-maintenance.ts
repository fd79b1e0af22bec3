import type { Command } from 'commander';
import type { Silence } from '../maintenance/maintenance.schema.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { printWindows } from './maintenance.command.js';
import { listingOptions, type ListingOptions } from './output-format.js';
import { printSilences, stateOption } from './silence.command.js';

type ListOptions = HubOptions & ListingOptions;

/** `get silences` and `get maintenancewindows`: the same listings as `silence list` and `maintenance list`. */
export function registerGetMaintenance(get: Command): void {
  hubOptions(listingOptions(get.command('silences [id]').alias('silence')))
    .addOption(stateOption())
    .description('silences, newest first, expired ones included; one by id')
    .action(async (id: string | undefined, options: ListOptions & { state?: Silence['state'] }) =>
      printSilences(connectToHub(options), id, options),
    );
  hubOptions(listingOptions(get.command('maintenancewindows [name]').alias('maintenancewindow').alias('mw')))
    .description('maintenance windows with the occurrence in force and the next one; one by name')
    .action(async (name: string | undefined, options: ListOptions) =>
      printWindows(connectToHub(options), name, options),
    );
}
