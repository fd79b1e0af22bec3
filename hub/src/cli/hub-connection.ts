import { execFileSync } from 'node:child_process';
import type { Command } from 'commander';
import { z } from 'zod';
import { InvalidSettingError } from '../config/invalid-setting-error.js';
import { clientConfigPath, findContext, readClientConfig, type ClientContext } from './client-config.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { createHubClient, type HubClient } from '../client/hub-client.js';

/** The flags every command that talks to a hub takes. */
export interface HubOptions {
  server?: string;
  context?: string;
}

export function hubOptions(command: Command): Command {
  return command
    .option('--server <url>', 'the hub (over MEERKAT_URL and the context)')
    .option('--context <name>', 'a context of the config file (over MEERKAT_CONTEXT and current-context)');
}

const environmentSchema = z.object({
  MEERKAT_URL: z.url().optional(),
  MEERKAT_API_KEY: z.string().min(1).optional(),
  MEERKAT_CONTEXT: z.string().min(1).optional(),
});

export interface HubTarget {
  server: string;
  /** Where the credential came from, for messages; never the credential itself. */
  credentialSource: string;
  bearer: string;
  context: string | undefined;
}

const DEFAULT_SERVER = 'http://127.0.0.1:3000';

function runTokenCommand(context: ClientContext, command: string): string {
  try {
    const token = execFileSync('/bin/sh', ['-c', command], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (token.trim() !== '') return token.trim();
  } catch {
    // Reported below without the command's output, which may hold a token.
  }
  throw new CommandFailure(ExitCode.hub, `the token-command of context "${context.name}" printed no token`);
}

/**
 * Where and as whom to call the hub. The context is --context, else MEERKAT_CONTEXT, else the file's
 * current-context. The server is --server, else MEERKAT_URL, else the context's, else 127.0.0.1:3000; the credential
 * is MEERKAT_API_KEY, else the context's. A context named on the command line beats the environment, since it was
 * asked for just now (docs/cli.md).
 */
function resolveHubTarget(options: HubOptions, env: NodeJS.ProcessEnv): HubTarget {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidSettingError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'is invalid');
  }
  const vars = parsed.data;
  const path = clientConfigPath(env);
  const config = readClientConfig(path);
  const contextName = options.context ?? vars.MEERKAT_CONTEXT ?? config['current-context'];
  const context = contextName === undefined ? undefined : findContext(config, contextName, path);
  const explicit = options.context !== undefined;
  const server =
    options.server ??
    (explicit ? context?.server : undefined) ??
    vars.MEERKAT_URL ??
    context?.server ??
    DEFAULT_SERVER;
  if (!z.url().safeParse(server).success)
    throw new CommandFailure(ExitCode.usage, `--server ${server} is not a URL`);
  const contextKey = context?.['api-key'];
  const command = context?.['token-command'];
  if (vars.MEERKAT_API_KEY !== undefined && !(explicit && (contextKey ?? command) !== undefined))
    return {
      server,
      bearer: vars.MEERKAT_API_KEY,
      credentialSource: 'MEERKAT_API_KEY',
      context: contextName,
    };
  if (context !== undefined && contextKey !== undefined)
    return { server, bearer: contextKey, credentialSource: `context ${context.name}`, context: context.name };
  if (context !== undefined && command !== undefined)
    return {
      server,
      bearer: runTokenCommand(context, command),
      credentialSource: `context ${context.name} token-command`,
      context: context.name,
    };
  throw new InvalidSettingError(
    'MEERKAT_API_KEY',
    `is required: the API key the commands act with (see \`meerkat keygen\`), or a context in ${path} (see \`meerkat config\`)`,
  );
}

export function connectToHub(options: HubOptions, env: NodeJS.ProcessEnv = process.env): HubClient {
  const target = resolveHubTarget(options, env);
  return createHubClient(target.server, target.bearer);
}
