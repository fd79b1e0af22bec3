import { Command } from 'commander';
import { version } from '../system/version.js';
import { registerApplyCommand } from './apply.command.js';
import { registerDevCommand } from './dev.command.js';
import { registerGetCommand } from './get.command.js';
import { runCommand } from './run-command.js';
import { registerHubCommand } from './hub.command.js';
import { registerKeygenCommand } from './keygen.command.js';
import { registerMigrateCommand } from './migrate.command.js';
import { registerRunnerCommand } from './runner.command.js';
import { registerOperatorCommand } from '../../../operator/src/operator.command.js';
import { registerSchedulerCommand } from './scheduler.command.js';
import { registerTestCommand } from './test.command.js';
import { registerWorkerCommand } from './worker.command.js';

const program = new Command()
  .name('meerkat')
  .description('Meerkat: Kubernetes-native synthetic API monitoring')
  .version(version)
  .showHelpAfterError();

registerDevCommand(program);
registerHubCommand(program);
registerSchedulerCommand(program);
registerWorkerCommand(program);
registerRunnerCommand(program);
registerMigrateCommand(program);
registerKeygenCommand(program);
registerApplyCommand(program);
registerGetCommand(program);
registerTestCommand(program);
registerOperatorCommand(program);

await runCommand(() => program.parseAsync(process.argv));
