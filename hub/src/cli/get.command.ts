import { Option, type Command } from 'commander';
import type { Monitor } from '../contract/monitor-definition.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import type { HubClient, MonitorHealthRow } from '../client/hub-client.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { registerGetMaintenance } from './get-maintenance.js';
import { findMonitor, monitorNamesOf, type MonitorScope } from './monitor-lookup.js';
import { monitorManifest } from './monitor-manifest.js';
import { outputOption, printItems, type OutputFormat } from './output-format.js';
import {
  eventColumns,
  integrationColumns,
  monitorColumns,
  runColumns,
  type EventRow,
  type MonitorRow,
  type RunRow,
} from './resource-columns.js';

interface GetOptions extends HubOptions, MonitorScope {
  output: OutputFormat;
}

const isTable = (format: OutputFormat) => format === 'table' || format === 'wide';

async function healthOf(hub: HubClient, monitorId: string): Promise<MonitorHealthRow | undefined> {
  const figures = await hub.getMonitorMetrics(monitorId);
  if (figures === undefined) return undefined;
  return {
    monitorId,
    status: figures.status,
    successRate: figures.runs.successRate,
    p95DurationMs: figures.latency.p95DurationMs,
    lastRunAt: figures.lastRun?.startedAt ?? null,
    lastRunSuccess: figures.lastRun?.success ?? null,
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
    scopeOptions(get.command('monitors [name]').alias('monitor').alias('mon')).addOption(outputOption()),
  )
    .description('monitors with their health and last run (24h); one monitor by name or id')
    .action(async (name: string | undefined, options: GetOptions) => {
      const hub = connectToHub(options);
      const monitors =
        name === undefined ? await hub.listMonitors(options) : [await findMonitor(hub, name, options)];
      printItems(await withHealth(hub, monitors, options.output), {
        format: options.output,
        kind: 'monitor',
        plural: 'monitors',
        columns: monitorColumns(new Date()),
        single: name !== undefined,
        manifest: monitorManifest,
      });
    });
}

function registerRuns(get: Command): void {
  hubOptions(scopeOptions(get.command('runs [id]').alias('run')).addOption(outputOption()))
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
        let runs: RunRow[];
        if (id !== undefined) {
          const run = await hub.getRun(id);
          if (run === undefined) throw new CommandFailure(ExitCode.failed, `run ${id} not found`);
          // One run answers without its monitor's name; a table shows it beside the id.
          const names = isTable(options.output)
            ? await monitorNamesOf(hub, [run.monitorId])
            : new Map<string, string>();
          runs = [{ ...run, monitorName: names.get(run.monitorId) }];
        } else {
          const monitor =
            options.monitor === undefined ? undefined : await findMonitor(hub, options.monitor, options);
          const { status, project, environment } = options;
          runs = await hub.listRuns({ limit, status, project, environment, monitorId: monitor?.id });
        }
        printItems(runs, {
          format: options.output,
          kind: 'run',
          plural: 'runs',
          columns: runColumns(new Date()),
          single: id !== undefined,
        });
      },
    );
}

function registerEventsAndIntegrations(get: Command): void {
  hubOptions(get.command('events').alias('event').addOption(outputOption()))
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
        format: options.output,
        kind: 'event',
        plural: 'events',
        columns: eventColumns(new Date()),
        single: false,
      });
    });

  hubOptions(get.command('integrations [name]').alias('integration').addOption(outputOption()))
    .description('notification integrations (webhook, email, chat); one by name or id')
    .action(async (name: string | undefined, options: GetOptions) => {
      const all = await connectToHub(options).listIntegrations();
      const chosen = name === undefined ? all : all.filter((i) => i.id === name || i.name === name);
      if (name !== undefined && chosen.length === 0)
        throw new CommandFailure(ExitCode.failed, `integration "${name}" not found`);
      printItems(chosen, {
        format: options.output,
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
