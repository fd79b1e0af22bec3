import { InvalidSettingError } from '../config/invalid-setting-error.js';
import { DatabaseBehindError, MigrationFailedError } from '../db/migration-errors.js';
import { DependencyUnavailableError } from '../system/dependency-errors.js';
import {
  CommandFailure,
  describeHubError,
  describeUnreachable,
  exitCodeOfHubError,
  ExitCode,
  isUnreachable,
} from './exit-codes.js';
import { HubRequestError } from '../client/hub-client.js';
import { UnreadablePathError } from './monitor-documents.js';
import { PortUnavailableError } from '../http/port-unavailable-error.js';

/** Failures a person can act on end the process with one line on stderr, not a stack trace. */
export async function runCommand(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (
      error instanceof InvalidSettingError ||
      error instanceof DatabaseBehindError ||
      error instanceof MigrationFailedError
    ) {
      process.stderr.write(`meerkat: ${error.message}\n`);
      process.exit(error instanceof InvalidSettingError ? 2 : 1);
    }
    if (error instanceof DependencyUnavailableError || error instanceof PortUnavailableError) {
      process.stderr.write(`meerkat: ${error.message}\n`);
      process.exit(1);
    }
    // The exit codes of the client commands: docs/cli.md, hub/src/cli/exit-codes.ts.
    if (error instanceof CommandFailure) {
      if (error.message !== '') process.stderr.write(`meerkat: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof UnreadablePathError) {
      process.stderr.write(`meerkat: ${error.message}\n`);
      process.exit(ExitCode.usage);
    }
    if (error instanceof HubRequestError) {
      process.stderr.write(
        describeHubError(error)
          .map((line) => `meerkat: ${line}\n`)
          .join(''),
      );
      process.exit(exitCodeOfHubError(error));
    }
    if (isUnreachable(error)) {
      process.stderr.write(`meerkat: ${describeUnreachable(error)}\n`);
      process.exit(ExitCode.hub);
    }
    throw error;
  }
}
