import type { Command } from 'commander';
import { loadClientSettings } from '../config/client-settings.js';
import { describeAction, executeAction, planApply, type PlannedAction } from './apply-plan.js';
import { createHubClient, HubRequestError } from './hub-client.js';
import { describeProblem, describeSource, readMonitorDocuments } from './monitor-documents.js';

interface ApplyOptions {
  filename: string[];
  dryRun?: boolean;
  prune?: boolean;
  project?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerApplyCommand(program: Command): void {
  program
    .command('apply')
    .description('create or update the monitors defined in files (API form or Monitor resources)')
    .requiredOption(
      '-f, --filename <path>',
      'a YAML/JSON file or a directory of them (repeatable)',
      collect,
      [],
    )
    .option('--dry-run', 'print what would be created, changed, left alone or pruned; change nothing')
    .option('--prune', 'delete monitors of --project that the files no longer define')
    .option('--project <project>', 'the project --prune looks at')
    .action(async (options: ApplyOptions) => {
      if (options.prune && options.project === undefined)
        program.error('meerkat apply: --prune needs --project');
      const settings = loadClientSettings(process.env);
      const { documents, problems } = await readMonitorDocuments(options.filename);
      if (problems.length > 0) {
        for (const p of problems) process.stderr.write(`${describeProblem(p)}\n`);
        process.stderr.write(`meerkat apply: ${problems.length} problem(s); nothing was changed\n`);
        process.exitCode = 1;
        return;
      }
      if (documents.length === 0) {
        process.stderr.write(`meerkat apply: no monitor documents in ${options.filename.join(', ')}\n`);
        process.exitCode = 1;
        return;
      }
      const hub = createHubClient(settings.MEERKAT_URL, settings.MEERKAT_API_KEY);
      const plan = await planApply(
        hub,
        documents,
        options.prune ? { project: options.project ?? '' } : undefined,
      );
      await applyPlan(hub, plan, options.dryRun === true);
    });
}

async function applyPlan(
  hub: ReturnType<typeof createHubClient>,
  plan: PlannedAction[],
  dryRun: boolean,
): Promise<void> {
  const counts = { created: 0, changed: 0, unchanged: 0, deleted: 0 };
  for (const action of plan) {
    const word = { create: 'created', change: 'changed', unchanged: 'unchanged', prune: 'deleted' } as const;
    counts[word[action.kind]] += 1;
    if (dryRun) {
      const wouldBe = action.kind === 'unchanged' ? 'unchanged' : `would be ${word[action.kind]}`;
      process.stdout.write(describeAction(action, wouldBe).join('\n') + '\n');
      continue;
    }
    try {
      process.stdout.write(describeAction(action, await executeAction(hub, action)).join('\n') + '\n');
    } catch (error) {
      if (!(error instanceof HubRequestError)) throw error;
      const where = 'document' in action ? `${describeSource(action.document.source)}: ` : '';
      const fields = error.details.map((d) => `${where}${d.path}: ${d.message}`);
      process.stderr.write(
        [`${where}the hub answered ${error.status}: ${error.message}`, ...fields].join('\n') + '\n',
      );
      process.exitCode = 1;
      return;
    }
  }
  const summary = `${plan.length} monitor(s): ${counts.created} created, ${counts.changed} changed, ${counts.unchanged} unchanged, ${counts.deleted} deleted`;
  process.stdout.write(`${summary}${dryRun ? ' (dry run: nothing was changed)' : ''}\n`);
}
