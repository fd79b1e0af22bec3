import type { Command } from 'commander';
import type { Monitor } from '../contract/monitor-definition.js';
import type { Run } from '../contract/run.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { runColumns } from './resource-columns.js';
import type { HubClient } from '../client/hub-client.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { findMonitor, monitorsDefinedIn, type MonitorScope } from './monitor-lookup.js';
import { outputOption, printItems, type OutputFormat } from './output-format.js';

interface TriggerOptions extends HubOptions, MonitorScope {
  filename: string[];
  wait?: boolean;
  timeout: string;
  output: OutputFormat;
}

const collect = (value: string, previous: string[]) => [...previous, value];
const POLL_MS = 500;
const finished = (run: Run) => run.status === 'completed' || run.status === 'failed';

/** The monitors named on the command line and defined in the -f files, as the hub has them. */
async function chosenMonitors(hub: HubClient, names: string[], options: TriggerOptions): Promise<Monitor[]> {
  const monitors = [];
  for (const name of names) monitors.push(await findMonitor(hub, name, options));
  if (options.filename.length === 0) return monitors;
  const { found, missing } = await monitorsDefinedIn(hub, options.filename);
  if (missing[0] !== undefined)
    throw new CommandFailure(ExitCode.failed, `monitor ${missing[0]} not found: apply it first`);
  monitors.push(...found);
  return monitors;
}

/** Every run of the groups, polled until all have finished or `deadline` passes. */
async function waitForRuns(hub: HubClient, groups: string[], deadline: number): Promise<Run[]> {
  for (;;) {
    const runs: Run[] = [];
    for (const executionGroupId of groups)
      runs.push(...(await hub.listRuns({ executionGroupId, limit: 100 })));
    if (runs.every(finished) || Date.now() >= deadline) return runs;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export function registerTriggerCommand(program: Command): void {
  const command = program
    .command('trigger [monitors...]')
    .description(
      'start a run of monitors now, in every location of each, on the hub (names, ids, or -f files)',
    )
    .option('-f, --filename <path>', 'the monitors these files define (repeatable)', collect, [])
    .option('--project <project>', 'when a name is used in several projects')
    .option('--environment <environment>', 'when a name is used in several environments')
    .option('--wait', 'wait for the runs to finish; exit 1 when one failed')
    .option('--timeout <seconds>', 'how long --wait waits', '120')
    .addOption(outputOption());
  hubOptions(command).action(async (names: string[], options: TriggerOptions) => {
    const timeout = Number(options.timeout);
    if (!(timeout > 0))
      throw new CommandFailure(ExitCode.usage, `--timeout ${options.timeout} is not a number of seconds`);
    if (names.length === 0 && options.filename.length === 0)
      throw new CommandFailure(ExitCode.usage, 'name monitors, or give -f files');
    const hub = connectToHub(options);
    const groups: string[] = [];
    for (const monitor of await chosenMonitors(hub, names, options)) {
      const run = await hub.triggerRun(monitor.id, { environment: monitor.environment });
      groups.push(run.executionGroupId);
    }
    const deadline = Date.now() + timeout * 1000;
    const runs =
      options.wait === true ? await waitForRuns(hub, groups, deadline) : await waitForRuns(hub, groups, 0);
    printItems(runs, {
      format: options.output,
      kind: 'run',
      plural: 'runs',
      columns: runColumns(new Date()),
      single: false,
    });
    if (options.wait !== true) return;
    if (!runs.every(finished))
      throw new CommandFailure(ExitCode.failed, `runs still unfinished after ${timeout} s`);
    if (runs.some((run) => run.success !== true)) throw new CommandFailure(ExitCode.failed);
  });
}
