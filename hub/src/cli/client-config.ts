import { errorCode, errorMessage } from '../log/error-facts.js';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { formatIssuePath } from '../contract/issue-path.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { yaml } from './yaml-on-demand.js';

/**
 * The client config file, kubeconfig's idea for Meerkat: named contexts, each a hub (server), a credential (an API
 * key, or a command that prints an OIDC access token) and the organization it acts in; `current-context` picks one.
 */
const contextSchema = z.strictObject({
  name: z.string().min(1).max(100),
  server: z.url(),
  'api-key': z.string().min(1).optional(),
  'token-command': z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Run by /bin/sh for each command; its output (trimmed) is the bearer token.' }),
  organization: z.string().min(1).optional(),
});
const configSchema = z.strictObject({
  'current-context': z.string().optional(),
  contexts: z.array(contextSchema).default([]),
});
export type ClientContext = z.infer<typeof contextSchema>;
export type ClientConfig = z.infer<typeof configSchema>;

/** MEERKAT_CONFIG, else `$XDG_CONFIG_HOME/meerkat/config.yaml`, else `~/.config/meerkat/config.yaml`. */
export function clientConfigPath(env: NodeJS.ProcessEnv): string {
  if (env.MEERKAT_CONFIG !== undefined && env.MEERKAT_CONFIG !== '') return env.MEERKAT_CONFIG;
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(homedir(), '.config');
  return join(base, 'meerkat', 'config.yaml');
}

const invalid = (path: string, message: string) => new CommandFailure(ExitCode.usage, `${path}: ${message}`);

/** The file's contexts; an absent file is an empty config, an invalid one stops the command (exit 2). */
export function readClientConfig(path: string): ClientConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { contexts: [] };
    throw invalid(path, `cannot read: ${errorMessage(error)}`);
  }
  let raw: unknown;
  try {
    raw = yaml().parse(text) ?? {};
  } catch (error) {
    throw invalid(path, errorMessage(error).split('\n')[0] ?? 'unreadable YAML');
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(path, `${formatIssuePath(issue?.path ?? [])}: ${issue?.message ?? 'is invalid'}`);
  }
  const names = parsed.data.contexts.map((c) => c.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw invalid(path, `context "${repeated}" is defined twice`);
  return parsed.data;
}

/** Writes the whole file at once (a rename), readable by its owner only: it may hold API keys. */
export function writeClientConfig(path: string, config: ClientConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, yaml().stringify(config), { mode: 0o600 });
  renameSync(temporary, path);
}

export function findContext(config: ClientConfig, name: string, path: string): ClientContext {
  const context = config.contexts.find((c) => c.name === name);
  if (context === undefined) {
    const known = config.contexts.map((c) => c.name).join(', ') || 'none';
    throw invalid(path, `no context "${name}" (contexts: ${known})`);
  }
  return context;
}
