import { Command } from 'commander';
import { version } from '../system/version.js';
import { registerDevCommand } from './dev.command.js';
import { runCommand } from './run-command.js';
import { registerHubCommand } from './hub.command.js';
import { registerKeygenCommand } from './keygen.command.js';
import { registerMigrateCommand } from './migrate.command.js';

const program = new Command()
  .name('meerkat')
  .description('Meerkat: Kubernetes-native synthetic API monitoring')
  .version(version)
  .showHelpAfterError();

registerDevCommand(program);
registerHubCommand(program);
registerMigrateCommand(program);
registerKeygenCommand(program);

await runCommand(() => program.parseAsync(process.argv));
