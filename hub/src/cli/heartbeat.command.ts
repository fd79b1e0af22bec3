import { Option, type Command } from 'commander';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { findMonitor, type MonitorScope } from './monitor-lookup.js';

interface TokenOptions extends HubOptions, MonitorScope {
  output?: 'json';
}

/**
 * `meerkat heartbeat token MONITOR`: a new ping token of a heartbeat monitor (docs/adr/0034-heartbeat-monitors.md),
 * printed once with the URL a job pings. Any earlier token of the monitor stops working.
 */
export function registerHeartbeatCommand(program: Command): void {
  const heartbeat = program.command('heartbeat').description('the ping tokens of heartbeat monitors');
  const token = heartbeat
    .command('token <monitor>')
    .description(
      'a new ping token of a heartbeat monitor (name or id), shown once; the earlier one stops working',
    )
    .option('--project <project>', 'when the name is used in several projects')
    .option('--environment <environment>', 'when the name is used in several environments')
    .addOption(
      new Option('-o, --output <format>', 'the monitor, token and ping URL as JSON').choices(['json']),
    );
  hubOptions(token).action(async (reference: string, options: TokenOptions) => {
    const hub = connectToHub(options);
    const monitor = await findMonitor(hub, reference, options);
    const minted = await hub.mintHeartbeatToken(monitor.id);
    if (options.output === 'json') {
      const answer = { monitor: monitor.id, token: minted.token, pingUrl: minted.pingUrl };
      process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      [
        `Ping URL of ${monitor.name} (shown once; it is the credential, keep it secret):`,
        `  ${minted.pingUrl}`,
        'A job reports with:',
        `  curl -fsS -m 10 --retry 3 ${minted.pingUrl}         # succeeded`,
        `  curl -fsS -m 10 --retry 3 ${minted.pingUrl}/start   # started (optional)`,
        `  curl -fsS -m 10 --retry 3 ${minted.pingUrl}/fail    # failed`,
        'Any earlier token of this monitor no longer works.',
        '',
      ].join('\n'),
    );
  });
}
