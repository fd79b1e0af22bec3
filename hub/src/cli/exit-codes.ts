import type { HubRequestError } from '../client/hub-client.js';
import { HubTransportError } from '../client/transport-retry.js';
import { errorMessage } from '../log/error-facts.js';

/**
 * The exit codes of every client sub-command (docs/cli.md): scripts and CI steps branch on them, so they mean the
 * same thing everywhere.
 */
export const ExitCode = {
  /** Done; every check passed; nothing differs. */
  ok: 0,
  /** A check failed (`test`), something differs (`apply --diff-exit-code`), or what was asked for is not there. */
  failed: 1,
  /** The command line, a file or a setting is wrong, or the hub refused the input as invalid: fix the input. */
  usage: 2,
  /** The hub could not be reached, refused the credentials or the role, or failed: fix the connection or the hub. */
  hub: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Ends the process with `exitCode`, printing `meerkat: <message>`; without a message the command has already
 * explained itself on stderr.
 */
export class CommandFailure extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message = '',
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 401, 403, 429 (after waiting) and 5xx are about reaching the hub; 404 is "not there"; other 4xx is bad input. */
export function exitCodeOfHubError(error: HubRequestError): ExitCode {
  if (error.status === 401 || error.status === 403 || error.status === 429 || error.status >= 500)
    return ExitCode.hub;
  return error.status === 404 ? ExitCode.failed : ExitCode.usage;
}

/**
 * A hub error as lines: one per failing field when the hub named fields (its message repeats the first of them, so
 * it is not printed again), else the message with the status.
 */
export function describeHubError(error: HubRequestError, where = ''): string[] {
  if (error.details.length > 0) return error.details.map((d) => `${where}${d.path}: ${d.message}`);
  return [`${where}the hub answered ${error.status}: ${error.message}`];
}

/**
 * `fetch` failing before any answer (refused connection, unknown host, timeout), or the hub client giving up on a
 * connection that failed (transport-retry.ts: refused on every attempt, or lost under a request it may not resend).
 */
export function isUnreachable(error: unknown): error is TypeError | HubTransportError {
  return (
    (error instanceof TypeError && error.message === 'fetch failed') || error instanceof HubTransportError
  );
}

export function describeUnreachable(error: TypeError | HubTransportError): string {
  if (error instanceof HubTransportError) return `cannot reach the hub (${error.message})`;
  return `cannot reach the hub (${errorMessage(error.cause)})`;
}
