import { InvalidSettingError } from '../config/settings.js';
import { DatabaseBehindError, MigrationFailedError } from '../db/migrator.js';
import { HubRequestError } from './hub-client.js';
import { UnreadablePathError } from './monitor-documents.js';

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
    if (error instanceof UnreadablePathError) {
      process.stderr.write(`meerkat: ${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof HubRequestError) {
      process.stderr.write(`meerkat: the hub answered ${error.status}: ${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof TypeError && error.message === 'fetch failed') {
      process.stderr.write(
        `meerkat: cannot reach the hub (${String((error.cause as Error | undefined)?.message ?? error.cause)})\n`,
      );
      process.exit(1);
    }
    throw error;
  }
}
