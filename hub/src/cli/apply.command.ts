import { Option, type Command } from 'commander';
import { diffJson } from '../contract/definition-diff.js';
import { definitionOf } from '../contract/stored-monitor.js';
import {
  checkPlanWithHub,
  describeAction,
  executeAction,
  planApply,
  type HubVerdict,
  type PlannedAction,
} from './apply-plan.js';
import { CommandFailure, describeHubError, exitCodeOfHubError, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { HubRequestError, type HubClient } from '../client/hub-client.js';
import { describeProblem, describeSource, readMonitorDocuments } from './monitor-documents.js';
import { applyWindows } from './window-documents.js';

interface ApplyOptions extends HubOptions {
  filename: string[];
  dryRun?: 'server' | 'client' | 'none';
  diffExitCode?: boolean;
  prune?: boolean;
  project?: string;
}

// No default: commander then reports a missing -f as a missing required option, naming the flag.
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
const PAST = { create: 'created', change: 'changed', unchanged: 'unchanged', prune: 'deleted' } as const;

export function registerApplyCommand(program: Command): void {
  const command = program
    .command('apply')
    .description(
      'create or update the monitors defined in files (API form or Monitor resources) and MaintenanceWindow ' +
        'resources; the hub checks every monitor document before the first change',
    )
    .requiredOption(
      '-f, --filename <path>',
      'a YAML/JSON file, a directory of them, or - for standard input (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '--dry-run [mode]',
        'change nothing: "server" (the default) prints the hub\'s verdict and diff; "client" only compares ' +
          'the files with what the hub has',
      )
        .choices(['server', 'client', 'none'])
        .preset('server'),
    )
    .option('--diff-exit-code', 'exit 1 when anything was (or, with --dry-run, would be) changed')
    .option('--prune', 'delete monitors of --project that the files no longer define')
    .option('--project <project>', 'the project --prune looks at');
  hubOptions(command).action(async (options: ApplyOptions) => {
    if (options.prune && options.project === undefined)
      command.error('meerkat apply: --prune needs --project', { exitCode: ExitCode.usage });
    const { documents, problems, windows } = await readMonitorDocuments(options.filename);
    if (problems.length > 0) {
      for (const p of problems) process.stderr.write(`${describeProblem(p)}\n`);
      process.stderr.write(`meerkat apply: ${problems.length} problem(s); nothing was changed\n`);
      throw new CommandFailure(ExitCode.usage);
    }
    if (documents.length === 0 && windows.length === 0) {
      process.stderr.write(`meerkat apply: no monitor documents in ${options.filename.join(', ')}\n`);
      throw new CommandFailure(ExitCode.usage);
    }
    const hub = connectToHub(options);
    const plan = await planApply(
      hub,
      documents,
      options.prune ? { project: options.project ?? '' } : undefined,
    );
    const mode = options.dryRun ?? 'none';
    const verdicts = mode === 'client' ? [] : await checkPlanWithHub(hub, plan);
    reportRefusals(verdicts);
    // Monitors, then maintenance windows (apply's only other kind): a window names monitors, not the reverse.
    if (plan.length > 0 || windows.length === 0) {
      if (mode === 'none') await applyPlan(hub, plan);
      else printDryRun(plan, verdicts, mode);
    }
    const applied = await applyWindows(hub, windows, mode !== 'none');
    for (const line of applied.lines) process.stdout.write(`${line}\n`);
    const changed = applied.changed || plan.some((action) => action.kind !== 'unchanged');
    if (options.diffExitCode === true && changed) throw new CommandFailure(ExitCode.failed);
  });
}

/** Every refusal, once per field, with the document it concerns; then stop before any change. */
export function reportRefusals(verdicts: HubVerdict[]): void {
  const refused = verdicts.flatMap((v) => ('refusal' in v ? [v] : []));
  if (refused.length === 0) return;
  for (const { action, refusal } of refused) {
    const where = 'document' in action ? `${describeSource(action.document.source)}: ` : '';
    process.stderr.write(describeHubError(refusal, where).join('\n') + '\n');
  }
  process.stderr.write(`meerkat apply: the hub refused ${refused.length} document(s); nothing was changed\n`);
  const worst = refused
    .map(({ refusal }) => exitCodeOfHubError(refusal))
    .reduce((worse, code) => (code > worse ? code : worse));
  throw new CommandFailure(worst);
}

function summaryOf(plan: PlannedAction[]): string {
  const counts = { created: 0, changed: 0, unchanged: 0, deleted: 0 };
  for (const action of plan) counts[PAST[action.kind]] += 1;
  return `${plan.length} monitor(s): ${counts.created} created, ${counts.changed} changed, ${counts.unchanged} unchanged, ${counts.deleted} deleted`;
}

/** Each action as it would run; with the hub's verdicts, a change shows the hub's own diff of what it would store. */
export function describeDryRun(plan: PlannedAction[], verdicts: HubVerdict[]): string[][] {
  const wouldStore = new Map(verdicts.flatMap((v) => ('wouldStore' in v ? [[v.action, v.wouldStore]] : [])));
  return plan.map((action) => {
    const stored = wouldStore.get(action);
    const shown =
      action.kind === 'change' && stored !== undefined
        ? { ...action, changes: diffJson(definitionOf(action.current), definitionOf(stored)) }
        : action;
    const outcome = action.kind === 'unchanged' ? 'unchanged' : `would be ${PAST[action.kind]}`;
    return describeAction(shown, outcome);
  });
}

function printDryRun(plan: PlannedAction[], verdicts: HubVerdict[], mode: 'server' | 'client'): void {
  for (const lines of describeDryRun(plan, verdicts)) process.stdout.write(lines.join('\n') + '\n');
  const checked = mode === 'server' ? 'the hub accepted every document; ' : '';
  process.stdout.write(`${summaryOf(plan)} (dry run: ${checked}nothing was changed)\n`);
}

async function applyPlan(hub: HubClient, plan: PlannedAction[]): Promise<void> {
  for (const [done, action] of plan.entries()) {
    try {
      process.stdout.write(describeAction(action, await executeAction(hub, action)).join('\n') + '\n');
    } catch (error) {
      // Every document passed the hub's dry run, so this is a change made meanwhile or the hub failing.
      if (!(error instanceof HubRequestError)) throw error;
      const where = 'document' in action ? `${describeSource(action.document.source)}: ` : '';
      process.stderr.write(describeHubError(error, where).join('\n') + '\n');
      process.stderr.write(`meerkat apply: stopped after ${done} of ${plan.length} monitor(s)\n`);
      throw new CommandFailure(exitCodeOfHubError(error));
    }
  }
  process.stdout.write(`${summaryOf(plan)}\n`);
}
