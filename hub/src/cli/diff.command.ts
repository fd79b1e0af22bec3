import type { Command } from 'commander';
import { describeDryRun, reportRefusals } from './apply.command.js';
import { checkPlanWithHub, planApply } from './apply-plan.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { describeProblem, readMonitorDocuments } from './monitor-documents.js';
import { describeWindowPlan, planWindows } from './window-documents.js';

interface DiffOptions extends HubOptions {
  filename: string[];
  prune?: boolean;
  project?: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * kubectl diff: what `apply -f` would change, as the hub would store it (it checks every document, keeping
 * nothing); exit 0 when nothing differs, 1 when something does, 2 or 3 on an error.
 */
export function registerDiffCommand(program: Command): void {
  const command = program
    .command('diff')
    .description(
      'show what apply -f would change to monitors and maintenance windows (the hub checks monitors, keeps ' +
        'nothing); exit 1 when anything differs',
    )
    .requiredOption(
      '-f, --filename <path>',
      'a YAML/JSON file, a directory of them, or - for standard input (repeatable)',
      collect,
    )
    .option('--prune', 'also show the monitors of --project that apply --prune would delete')
    .option('--project <project>', 'the project --prune looks at');
  hubOptions(command).action(async (options: DiffOptions) => {
    if (options.prune === true && options.project === undefined)
      throw new CommandFailure(ExitCode.usage, '--prune needs --project');
    const { documents, problems, windows } = await readMonitorDocuments(options.filename);
    if (problems.length > 0) {
      for (const p of problems) process.stderr.write(`${describeProblem(p)}\n`);
      throw new CommandFailure(ExitCode.usage);
    }
    const hub = connectToHub(options);
    const prune = options.prune === true ? { project: options.project ?? '' } : undefined;
    const plan = await planApply(hub, documents, prune);
    const verdicts = await checkPlanWithHub(hub, plan);
    reportRefusals(verdicts);
    const differing = describeDryRun(plan, verdicts).filter((_, i) => plan[i]?.kind !== 'unchanged');
    // MaintenanceWindow documents, compared with the windows of the same names.
    for (const windowPlan of await planWindows(hub, windows))
      if (windowPlan.kind !== 'unchanged')
        differing.push(describeWindowPlan(windowPlan, `would be ${windowPlan.kind}`));
    for (const lines of differing) process.stdout.write(lines.join('\n') + '\n');
    if (differing.length > 0) throw new CommandFailure(ExitCode.failed);
  });
}
