import type { Command } from 'commander';
import {
  clientConfigPath,
  findContext,
  readClientConfig,
  writeClientConfig,
  type ClientContext,
} from './client-config.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { formatTable } from './output-format.js';

interface SetContextOptions {
  server?: string;
  apiKey?: string;
  tokenCommand?: string;
  organization?: string;
}

/** `meerkat config`: the contexts of the client config file, as `kubectl config` handles kubeconfig's. */
export function registerConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description(
      `the client config file's contexts (${clientConfigPath(process.env)}; MEERKAT_CONFIG moves it)`,
    );

  config
    .command('get-contexts')
    .description('list the contexts; * marks the current one')
    .action(() => {
      const path = clientConfigPath(process.env);
      const file = readClientConfig(path);
      const rows = file.contexts.map((c) => [
        c.name === file['current-context'] ? '*' : '',
        c.name,
        c.server,
        c.organization ?? '',
        c['api-key'] !== undefined ? 'api-key' : c['token-command'] !== undefined ? 'token-command' : 'none',
      ]);
      process.stdout.write(formatTable(['CURRENT', 'NAME', 'SERVER', 'ORGANIZATION', 'CREDENTIAL'], rows));
    });

  config
    .command('current-context')
    .description('print the current context')
    .action(() => {
      const current = readClientConfig(clientConfigPath(process.env))['current-context'];
      if (current === undefined) throw new CommandFailure(ExitCode.failed, 'current-context is not set');
      process.stdout.write(`${current}\n`);
    });

  config
    .command('use-context <name>')
    .description('make <name> the current context')
    .action((name: string) => {
      const path = clientConfigPath(process.env);
      const file = readClientConfig(path);
      findContext(file, name, path);
      writeClientConfig(path, { ...file, 'current-context': name });
      process.stdout.write(`Switched to context "${name}".\n`);
    });

  config
    .command('set-context <name>')
    .description('create or update a context (the file is written readable by its owner only)')
    .option('--server <url>', 'the hub')
    .option('--api-key <key>', 'an API key (replaces a token-command)')
    .option('--token-command <command>', 'a command printing an OIDC access token (replaces an api-key)')
    .option('--organization <id>', 'the organization the credential acts in (shown by get-contexts)')
    .action((name: string, options: SetContextOptions) => {
      const path = clientConfigPath(process.env);
      const file = readClientConfig(path);
      const existing = file.contexts.find((c) => c.name === name);
      const server = options.server ?? existing?.server;
      if (server === undefined)
        throw new CommandFailure(ExitCode.usage, `context "${name}" is new: give --server`);
      if (!URL.canParse(server)) throw new CommandFailure(ExitCode.usage, `--server ${server} is not a URL`);
      if (options.apiKey !== undefined && options.tokenCommand !== undefined)
        throw new CommandFailure(ExitCode.usage, 'give --api-key or --token-command, not both');
      const credential: Partial<ClientContext> =
        options.apiKey !== undefined
          ? { 'api-key': options.apiKey }
          : options.tokenCommand !== undefined
            ? { 'token-command': options.tokenCommand }
            : { 'api-key': existing?.['api-key'], 'token-command': existing?.['token-command'] };
      const organization = options.organization ?? existing?.organization;
      const context: ClientContext = {
        name,
        server,
        ...Object.fromEntries(Object.entries(credential).filter(([, v]) => v !== undefined)),
        ...(organization === undefined ? {} : { organization }),
      };
      const contexts = existing
        ? file.contexts.map((c) => (c.name === name ? context : c))
        : [...file.contexts, context];
      writeClientConfig(path, { ...file, contexts, 'current-context': file['current-context'] ?? name });
      process.stdout.write(`Context "${name}" ${existing ? 'modified' : 'created'} in ${path}.\n`);
    });
}
