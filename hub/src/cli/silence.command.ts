import { Option, type Command } from 'commander';
import type { HubClient } from '../client/hub-client.js';
import type { Silence } from '../maintenance/maintenance.schema.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { silenceColumns } from './maintenance-columns.js';
import { matcherOptions, matchersOf, type MatcherFlags } from './matcher-arguments.js';
import { listingOf, listingOptions, printItems, type ListingOptions } from './output-format.js';

const SILENCE_STATES = ['pending', 'active', 'expired'] as const;

interface CreateOptions extends HubOptions, MatcherFlags {
  duration?: string;
  for?: string;
  until?: string;
  start?: string;
  comment: string;
  author?: string;
}

/** `get silences` and `silence list`: every silence (expired ones too, for audit) or one state's, or one by id. */
export async function printSilences(
  hub: HubClient,
  id: string | undefined,
  options: ListingOptions & { state?: Silence['state'] },
): Promise<void> {
  let silences: Silence[];
  if (id === undefined) silences = await hub.listSilences(options.state);
  else {
    const silence = await hub.getSilence(id);
    if (silence === undefined) throw new CommandFailure(ExitCode.failed, `silence ${id} not found`);
    silences = [silence];
  }
  printItems(silences, {
    ...listingOf(options),
    kind: 'silence',
    plural: 'silences',
    columns: silenceColumns(new Date()),
    single: id !== undefined,
  });
}

export const stateOption = () =>
  new Option('--state <state>', 'only silences in this state').choices(SILENCE_STATES);

function registerCreate(silence: Command): void {
  const create = matcherOptions(
    silence.command('create [matchers...]').alias('add').usage('[matchers...] --duration 2h -m "why"'),
  )
    .description(
      'hold the notifications of the runs matched (label=value or label!=value, values comma-separated; ' +
        'labels: monitor, monitorId, project, environment, location) for a while; prints the new id',
    )
    .option('-d, --duration <duration>', 'how long from the start, e.g. 30m, 2h, 1d12h')
    .option('--for <duration>', 'the same as --duration')
    .option(
      '--until <time>',
      'the end, an ISO 8601 time such as 2026-03-01T18:00:00Z (instead of --duration)',
    )
    .option('--start <time>', 'the start, an ISO 8601 time (default now)')
    .requiredOption('-m, --comment <text>', 'why: it stays with the silence for whoever reads it later')
    .option('--author <name>', 'who to record as its creator (default the API key or token subject)');
  hubOptions(create).action(async (args: string[], options: CreateOptions) => {
    const duration = options.duration ?? options.for;
    if (options.duration !== undefined && options.for !== undefined)
      throw new CommandFailure(ExitCode.usage, 'give --duration or --for, not both');
    if ((duration === undefined) === (options.until === undefined))
      throw new CommandFailure(ExitCode.usage, 'give how long (--duration 2h) or until when (--until TIME)');
    const matchers = matchersOf(args, options);
    const created = await connectToHub(options).createSilence({
      matchers,
      comment: options.comment,
      ...(duration === undefined ? {} : { duration }),
      ...(options.until === undefined ? {} : { endsAt: options.until }),
      ...(options.start === undefined ? {} : { startsAt: options.start }),
      ...(options.author === undefined ? {} : { createdBy: options.author }),
    });
    // The id alone, as amtool prints it, so that a deploy script can keep it: ID=$(meerkat silence create ...).
    process.stdout.write(`${created.id}\n`);
  });
}

export function registerSilenceCommand(program: Command): void {
  const silence = program
    .command('silence')
    .description('hold notifications while you deploy or investigate (Alertmanager silences)');
  registerCreate(silence);

  hubOptions(listingOptions(silence.command('list [id]').alias('ls').alias('query')))
    .addOption(stateOption())
    .description('silences, newest first, expired ones included; one by id')
    .action(
      async (id: string | undefined, options: HubOptions & ListingOptions & { state?: Silence['state'] }) =>
        printSilences(connectToHub(options), id, options),
    );

  hubOptions(silence.command('expire <ids...>').alias('delete').alias('rm'))
    .description('end silences now (they stay listed, expired, for audit)')
    .action(async (ids: string[], options: HubOptions) => {
      const hub = connectToHub(options);
      for (const id of ids) {
        const expired = await hub.expireSilence(id);
        process.stdout.write(`silence ${expired.id} expired\n`);
      }
    });
}
