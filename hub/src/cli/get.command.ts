import { Option, type Command } from 'commander';
import type { Monitor } from '../contract/monitor-definition.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import type { HubClient, MonitorHealthRow } from '../client/hub-client.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { registerGetMaintenance } from './get-maintenance.js';
import { findMonitor, monitorNamesOf, type MonitorScope } from './monitor-lookup.js';
import { monitorManifest } from './monitor-manifest.js';
import { watchAndPrint, watchOption } from './get-watch.js';
import {
  listingOf,
  listingOptions,
  printItems,
  type ListingOptions,
  type OutputFormat,
} from './output-format.js';
import {
  eventColumns,
  integrationColumns,
  monitorColumns,
  runColumns,
  type EventRow,
  type MonitorRow,
  type RunRow,
} from './resource-columns.js';

interface GetOptions extends HubOptions, MonitorScope, ListingOptions {
  watch?: boolean;
}

const isTable = (format: OutputFormat) => format === 'table' || format === 'wide';

async function healthOf(hub: HubClient, monitorId: string): Promise<MonitorHealthRow | undefined> {
  const figures = await hub.getMonitorMetrics(monitorId);
  if (figures === undefined) return undefined;
  return {
    monitorId,
    status: figures.status,
    successRate: figures.runs.successRate,
    runCount: figures.runs.total,
    p95DurationMs: figures.latency.p95DurationMs,
    lastRunAt: figures.lastRun?.startedAt ?? null,
    lastRunSuccess: figures.lastRun?.success ?? null,
    lastRunId: figures.lastRun?.id ?? null,
    lastRunDurationMs: figures.lastRun?.durationMs ?? null,
  };
}

/**
 * The monitors with their health, for the table formats only: one paged read of every monitor's row (a request per
 * 100 monitors, ADR 0031), not a request per monitor; one monitor reads its own.
 */
async function withHealth(hub: HubClient, monitors: Monitor[], format: OutputFormat): Promise<MonitorRow[]> {
  if (!isTable(format)) return monitors;
  const [only] = monitors;
  if (monitors.length === 1 && only !== undefined) return [{ ...only, health: await healthOf(hub, only.id) }];
  const rows = await hub.listMonitorHealth();
  const byId = new Map(rows.map((row) => [row.monitorId, row]));
  return monitors.map((monitor) => ({ ...monitor, health: byId.get(monitor.id) }));
}

const scopeOptions = (command: Command) =>
  command
    .option('--project <project>', 'only this project')
    .option('--environment <environment>', 'only this environment');

function registerMonitors(get: Command): void {
  hubOptions(
    watchOption(listingOptions(scopeOptions(get.command('monitors [name]').alias('monitor').alias('mon')))),
  )
    .description('monitors with their health and last run (24h); one monitor by name or id')
    .option(
      '-l, --selector <selector>',
      'only monitors whose labels match (team=shop,tier!=1,canary,!legacy)',
    )
    .action(async (name: string | undefined, options: GetOptions & { selector?: string }) => {
      const hub = connectToHub(options);
      const read = async () =>
        withHealth(
          hub,
          name === undefined
            ? await hub.listMonitors({ ...options, labelSelector: options.selector })
            : [await findMonitor(hub, name, options)],
          options.output,
        );
      const print = () => ({
        ...listingOf(options),
        kind: 'monitor',
        plural: 'monitors',
        columns: monitorColumns(new Date()),
        manifest: monitorManifest,
      });
      if (options.watch === true) await watchAndPrint(read, print);
      printItems(await read(), { ...print(), single: name !== undefined });
    });
}

function registerRuns(get: Command): void {
  hubOptions(watchOption(listingOptions(scopeOptions(get.command('runs [id]').alias('run')))))
    .description('the newest runs, of one monitor and status when given; one run by id')
    .option('--monitor <name>', 'only runs of this monitor (name or id)')
    .addOption(
      new Option('--status <status>', 'only runs in this status').choices([
        'pending',
        'running',
        'completed',
        'failed',
      ]),
    )
    .option('--limit <n>', 'at most this many (1 to 100)', '20')
    .action(
      async (
        id: string | undefined,
        options: GetOptions & { monitor?: string; status?: string; limit: string },
      ) => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100)
          throw new CommandFailure(ExitCode.usage, `--limit ${options.limit} is not a number from 1 to 100`);
        const hub = connectToHub(options);
        const monitor =
          options.monitor === undefined || id !== undefined
            ? undefined
            : await findMonitor(hub, options.monitor, options);
        const read = async (): Promise<RunRow[]> => {
          if (id === undefined) {
            const { status, project, environment } = options;
            return hub.listRuns({ limit, status, project, environment, monitorId: monitor?.id });
          }
          const run = await hub.getRun(id);
          if (run === undefined) throw new CommandFailure(ExitCode.failed, `run ${id} not found`);
          // One run answers without its monitor's name; a table shows it beside the id.
          const names = isTable(options.output)
            ? await monitorNamesOf(hub, [run.monitorId])
            : new Map<string, string>();
          return [{ ...run, monitorName: names.get(run.monitorId) }];
        };
        const print = () => ({
          ...listingOf(options),
          kind: 'run',
          plural: 'runs',
          columns: runColumns(new Date()),
        });
        if (options.watch === true) await watchAndPrint(read, print);
        printItems(await read(), { ...print(), single: id !== undefined });
      },
    );
}

function registerEventsAndIntegrations(get: Command): void {
  hubOptions(listingOptions(get.command('events').alias('event')))
    .description('the newest notification events')
    .option('--limit <n>', 'at most this many (1 to 100)', '20')
    .action(async (options: GetOptions & { limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new CommandFailure(ExitCode.usage, `--limit ${options.limit} is not a number from 1 to 100`);
      const hub = connectToHub(options);
      const events: EventRow[] = await hub.listNotificationEvents(limit);
      if (isTable(options.output)) {
        const names = await monitorNamesOf(
          hub,
          events.map((e) => e.monitorId),
        );
        for (const event of events) event.monitorName = names.get(event.monitorId);
      }
      printItems(events, {
        ...listingOf(options),
        kind: 'event',
        plural: 'events',
        columns: eventColumns(new Date()),
        single: false,
      });
    });

  hubOptions(listingOptions(get.command('integrations [name]').alias('integration')))
    .description('notification integrations (webhook, email, chat); one by name or id')
    .action(async (name: string | undefined, options: GetOptions) => {
      const all = await connectToHub(options).listIntegrations();
      const chosen = name === undefined ? all : all.filter((i) => i.id === name || i.name === name);
      if (name !== undefined && chosen.length === 0)
        throw new CommandFailure(ExitCode.failed, `integration "${name}" not found`);
      printItems(chosen, {
        ...listingOf(options),
        kind: 'integration',
        plural: 'integrations',
        columns: integrationColumns,
        single: name !== undefined && chosen.length === 1,
      });
    });
}

export function registerGetCommand(program: Command): void {
  const get = program.command('get').description('list resources from the hub, or show one (kubectl get)');
  registerMonitors(get);
  registerRuns(get);
  registerEventsAndIntegrations(get);
  registerGetMaintenance(get);
}
