import { Option, type Command } from 'commander';
import { loadClientSettings } from '../config/client-settings.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { createHubClient } from './hub-client.js';

const columns: Array<[string, (m: Monitor) => string]> = [
  ['ID', (m) => m.id],
  ['PROJECT', (m) => m.project],
  ['ENVIRONMENT', (m) => m.environment],
  ['NAME', (m) => m.name],
  [
    'EVERY',
    (m) => `${m.frequency.every} ${m.frequency.unit.toLowerCase()}${m.frequency.every === 1 ? '' : 's'}`,
  ],
  ['LOCATIONS', (m) => (m.locations ?? ['default']).join(',')],
  ['UPDATED', (m) => m.updatedAt],
];

/** A kubectl-style table: columns padded to their widest cell. */
export function formatMonitorTable(monitors: Monitor[]): string {
  const rows = [columns.map(([title]) => title), ...monitors.map((m) => columns.map(([, cell]) => cell(m)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('   ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export function registerGetCommand(program: Command): void {
  const get = program.command('get').description('list resources from the hub');
  get
    .command('monitors')
    .description('list monitors as a table (or JSON)')
    .option('--project <project>', 'only this project')
    .option('--environment <environment>', 'only this environment')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'),
    )
    .action(async (options: { project?: string; environment?: string; output: 'table' | 'json' }) => {
      const settings = loadClientSettings(process.env);
      const monitors = await createHubClient(settings.MEERKAT_URL, settings.MEERKAT_API_KEY).listMonitors(
        options,
      );
      if (options.output === 'json') process.stdout.write(JSON.stringify(monitors, null, 2) + '\n');
      else if (monitors.length === 0) process.stdout.write('No monitors found.\n');
      else process.stdout.write(formatMonitorTable(monitors));
    });
}
