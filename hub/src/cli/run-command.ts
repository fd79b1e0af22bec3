import { InvalidSettingError } from '../config/settings.js';
import { DatabaseBehindError, MigrationFailedError } from '../db/migrator.js';

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
    throw error;
  }
}
