import { Option, type Command } from 'commander';
import { version } from '../system/version.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';

/** kubectl version: this program's version, then the hub's; `--client` asks no hub. */
export function registerVersionCommand(program: Command): void {
  hubOptions(program.command('version'))
    .description("this program's version and the hub's")
    .option('--client', 'only the client version; no hub is asked')
    .addOption(new Option('-o, --output <format>', 'both versions as one JSON object').choices(['json']))
    .action(async (options: HubOptions & { client?: boolean; output?: 'json' }) => {
      const json = options.output === 'json';
      // Printed before the hub is asked, so an unreachable hub (exit 3) still shows it, as kubectl does.
      if (!json) process.stdout.write(`Client Version: ${version}\n`);
      const server = options.client === true ? undefined : await connectToHub(options).getServerVersion();
      if (json) {
        const both = { clientVersion: version, ...(server === undefined ? {} : { serverVersion: server }) };
        process.stdout.write(JSON.stringify(both, null, 2) + '\n');
      } else if (server !== undefined) process.stdout.write(`Server Version: ${server}\n`);
    });
}
