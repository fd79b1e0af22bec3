import type { Command } from 'commander';
import { z } from 'zod';
import { loadClientSettings } from '../config/client-settings.js';
import { InvalidSettingError } from '../config/invalid-setting-error.js';
import { createEgressPolicy } from '../egress/egress-policy.js';
import { egressListsOf, egressSettingsShape } from '../egress/egress-rules.js';
import { executeRemoteRun } from '../jobs/remote-run.js';
import { assertionBudgetShape } from '../runner/assertion-budget-setting.js';
import { createLogger } from '../log/logger.js';
import { createHubClient } from '../client/hub-client.js';

const runnerSettingsSchema = z.object({
  MEERKAT_ORGANIZATION_ID: z
    .string({ error: 'is required: the organization of the run (set by the runner Job)' })
    .min(1),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  RUN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...egressSettingsShape,
  ...assertionBudgetShape,
});

export function registerRunnerCommand(program: Command): void {
  program
    .command('runner')
    .description('the entry point of a Kubernetes runner Job: execute one run and report it to the hub')
    .requiredOption('--run <id>', 'the run to execute')
    .action(async (options: { run: string }) => {
      const client = loadClientSettings(process.env);
      const parsed = runnerSettingsSchema.safeParse(process.env);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InvalidSettingError(
          String(issue?.path[0] ?? 'environment'),
          issue?.message ?? 'is invalid',
        );
      }
      const settings = parsed.data;
      const log = createLogger(settings.LOG_LEVEL, { process: 'runner', runId: options.run });
      await executeRemoteRun({
        hub: createHubClient(client.MEERKAT_URL, client.MEERKAT_API_KEY),
        runId: options.run,
        organizationId: settings.MEERKAT_ORGANIZATION_ID,
        requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
        runTimeoutMs: settings.RUN_TIMEOUT_MS,
        assertionBudgetMs: settings.ASSERTION_BUDGET_MS,
        // A runner Job listens on nothing, so it has no ports of its own to refuse.
        egress: createEgressPolicy({
          lists: egressListsOf(settings),
          ownEndpoints: settings.MEERKAT_ENDPOINTS,
        }),
        log,
      });
    });
}
