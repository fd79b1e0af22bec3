import type { Command } from 'commander';
import { runWithMonitor, monitorLabel } from './describe-run.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { stepLog } from './run-steps.js';

/** kubectl logs for a run: its step log, from the step records the runner reported. */
export function registerLogsCommand(program: Command): void {
  hubOptions(program.command('logs <run>'))
    .description("a run's step log: each step's request, outcome, time, assertions and failing response")
    .action(async (id: string, options: HubOptions) => {
      const { run, monitor } = await runWithMonitor(connectToHub(options), id);
      const result = run.success === null ? run.status : run.success ? 'passed' : 'failed';
      process.stdout.write(
        [
          `# run ${run.id} of monitor ${monitorLabel(run.monitorId, monitor)} in ${run.location}: ${result}`,
          ...stepLog(run),
        ].join('\n') + '\n',
      );
    });
}
