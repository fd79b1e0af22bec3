import { Command } from 'commander';
import { version } from '../system/version.js';
import { ExitCode } from './exit-codes.js';
import { runCommand } from './run-command.js';

type Register = (program: Command) => void;

/**
 * Each sub-command's module, loaded only when that sub-command runs (every one for `--help`): a runner Job's
 * container then loads the runner's module graph, not the API's, the operator's and the rest (docs/benchmarks.md).
 */
const subCommands: Record<string, () => Promise<Register>> = {
  dev: async () => (await import('./dev.command.js')).registerDevCommand,
  hub: async () => (await import('./hub.command.js')).registerHubCommand,
  scheduler: async () => (await import('./scheduler.command.js')).registerSchedulerCommand,
  worker: async () => (await import('./worker.command.js')).registerWorkerCommand,
  runner: async () => (await import('./runner.command.js')).registerRunnerCommand,
  migrate: async () => (await import('./migrate.command.js')).registerMigrateCommand,
  keygen: async () => (await import('./keygen.command.js')).registerKeygenCommand,
  apply: async () => (await import('./apply.command.js')).registerApplyCommand,
  get: async () => (await import('./get.command.js')).registerGetCommand,
  describe: async () => (await import('./describe.command.js')).registerDescribeCommand,
  trigger: async () => (await import('./trigger.command.js')).registerTriggerCommand,
  delete: async () => (await import('./delete.command.js')).registerDeleteCommand,
  diff: async () => (await import('./diff.command.js')).registerDiffCommand,
  edit: async () => (await import('./edit.command.js')).registerEditCommand,
  completion: async () => (await import('./completion.command.js')).registerCompletionCommand,
  logs: async () => (await import('./logs.command.js')).registerLogsCommand,
  version: async () => (await import('./version.command.js')).registerVersionCommand,
  config: async () => (await import('./config.command.js')).registerConfigCommand,
  test: async () => (await import('./test.command.js')).registerTestCommand,
  silence: async () => (await import('./silence.command.js')).registerSilenceCommand,
  maintenance: async () => (await import('./maintenance.command.js')).registerMaintenanceCommand,
  admin: async () => (await import('./admin.command.js')).registerAdminCommand,
  heartbeat: async () => (await import('./heartbeat.command.js')).registerHeartbeatCommand,
  operator: async () => (await import('../../../operator/src/operator.command.js')).registerOperatorCommand,
};

const program = new Command()
  .name('meerkat')
  .description('Meerkat: Kubernetes-native synthetic API monitoring')
  .version(version)
  .showHelpAfterError()
  // A usage error (unknown option, missing argument, bad choice) exits 2 in every sub-command (docs/cli.md);
  // the sub-commands inherit this, being registered after it.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : ExitCode.usage));

const requested = process.argv[2];
// `completion` lists every command, so it loads them all, as `--help` does.
const names =
  requested !== undefined && requested in subCommands && requested !== 'completion'
    ? [requested]
    : Object.keys(subCommands);
for (const name of names) (await subCommands[name]?.())?.(program);

await runCommand(() => program.parseAsync(process.argv));
