import { readFile } from 'node:fs/promises';
import { Option, type Command, type CommanderError } from 'commander';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatIssuePath } from '../contract/issue-path.js';
import { scopeNameSchema } from '../contract/monitor-definition.js';
import { secretNameSchema } from '../contract/secret-reference.js';
import { createEgressPolicy } from '../egress/egress-policy.js';
import { errorMessage } from '../log/error-facts.js';
import { egressListsOf, egressSettingsShape } from '../egress/egress-rules.js';
import { assertionBudgetShape } from '../runner/assertion-budget-setting.js';
import { createMonitorRunner, type RunOutcome } from '../runner/monitor-runner.js';
import type { SecretReader } from '../secrets/secret-store.js';
import {
  describeProblem,
  identityKey,
  readMonitorDocuments,
  UnreadablePathError,
} from './monitor-documents.js';
import { ExitCode } from './exit-codes.js';
import {
  jsonReport,
  junitReport,
  reporters,
  summaryLine,
  tapReport,
  textReport,
  useColour,
  type MonitorResult,
  type ReporterName,
} from './test-reporters.js';

interface TestOptions {
  filename: string;
  env?: string;
  secrets?: string;
  json?: boolean;
  grep?: string;
  reporter: ReporterName;
}

const SECRET_VARIABLE_PREFIX = 'MEERKAT_SECRET_';
// Exit codes as every client command's (exit-codes.ts): 0 all passed, 1 a monitor failed, 2 usage.
const EXIT_FAILED = ExitCode.failed;
const EXIT_USAGE = ExitCode.usage;

class UsageError extends Error {}

/**
 * Secret values for a local run: a `--secrets` file (name -> value; an object value is kept as JSON so that
 * `$secret.field` can pick from it) overlaid by MEERKAT_SECRET_<NAME> variables. A pinned `version` reads the
 * same single value: a local file has no history.
 */
async function readLocalSecrets(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Map<string, string>> {
  const secrets = new Map<string, string>();
  if (file !== undefined) {
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new UsageError(new UnreadablePathError(file, error).message);
    });
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (error) {
      throw new UsageError(`${file}: ${errorMessage(error).split('\n')[0]}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new UsageError(`${file}: expected a map of secret names to values`);
    for (const [name, value] of Object.entries(parsed)) {
      if (!secretNameSchema.safeParse(name).success)
        throw new UsageError(`${file}: ${name} is not a secret name`);
      secrets.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  for (const [variable, value] of Object.entries(env)) {
    if (variable.startsWith(SECRET_VARIABLE_PREFIX) && value !== undefined)
      secrets.set(variable.slice(SECRET_VARIABLE_PREFIX.length), value);
  }
  return secrets;
}

const readerOf = (secrets: Map<string, string>): SecretReader => ({
  read: (_scope, name) => Promise.resolve(secrets.get(name)),
});

/**
 * The policy of a run on this machine: as in `meerkat dev`, loopback is allowed (the target is often a local
 * server) and the metadata and link-local addresses are not, so a monitor file from elsewhere (a pull request
 * tested in CI) cannot read the machine's cloud credentials into the report. EGRESS_* variables tighten it.
 */
function localEgressPolicy(env: NodeJS.ProcessEnv) {
  const parsed = z.object(egressSettingsShape).safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `invalid setting ${formatIssuePath(issue?.path ?? [])}: ${issue?.message ?? 'is invalid'}`,
    );
  }
  return createEgressPolicy({ lists: egressListsOf(parsed.data), allowLoopback: true });
}

/** ASSERTION_BUDGET_MS, as a worker reads it. */
function localAssertionBudgetMs(env: NodeJS.ProcessEnv): number {
  const parsed = z.object(assertionBudgetShape).safeParse(env);
  if (!parsed.success)
    throw new UsageError(
      `invalid setting ASSERTION_BUDGET_MS: ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
    );
  return parsed.data.ASSERTION_BUDGET_MS;
}

async function loadMonitors(options: TestOptions) {
  const { documents, problems } = await readMonitorDocuments([options.filename]).catch((error: unknown) => {
    throw error instanceof UnreadablePathError ? new UsageError(error.message) : error;
  });
  const lines = problems.map(describeProblem);
  if (lines.length > 0) throw new UsageError(lines.join('\n'));
  if (documents.length === 0) throw new UsageError(`no monitor documents in ${options.filename}`);
  if (options.env !== undefined && !scopeNameSchema.safeParse(options.env).success)
    throw new UsageError(`--env ${options.env} is not an environment name`);
  const monitors = documents.map(({ definition }) =>
    options.env === undefined ? definition : { ...definition, environment: options.env },
  );
  if (options.grep === undefined) return monitors;
  let pattern: RegExp;
  try {
    pattern = new RegExp(options.grep);
  } catch (error) {
    throw new UsageError(`--grep ${options.grep}: ${errorMessage(error)}`);
  }
  const chosen = monitors.filter((monitor) => pattern.test(identityKey(monitor)));
  if (chosen.length === 0)
    throw new UsageError(`--grep ${options.grep} matches none of ${monitors.map(identityKey).join(', ')}`);
  return chosen;
}

async function testMonitors(options: TestOptions): Promise<number> {
  const monitors = await loadMonitors(options);
  const secrets = readerOf(await readLocalSecrets(options.secrets, process.env));
  const runner = createMonitorRunner({
    egress: localEgressPolicy(process.env),
    assertionBudgetMs: localAssertionBudgetMs(process.env),
  });
  const results: MonitorResult[] = [];
  const text = options.reporter === 'text' && options.json !== true;
  const colour = useColour(process.stdout, process.env);
  try {
    for (const monitor of monitors) {
      if (monitor.heartbeat !== undefined) {
        // Judged by the hub from its job's pings: valid is all a local test can say (docs/monitors.md).
        const now = new Date();
        results.push({
          monitor: identityKey(monitor),
          outcome: {
            success: true,
            errors: [],
            errorClasses: [],
            steps: [],
            startedAt: now,
            completedAt: now,
            durationMs: 0,
          },
        });
        if (text)
          process.stdout.write(
            `${identityKey(monitor)}: heartbeat monitor, definition valid; nothing runs here (its job pings the hub)\n`,
          );
        continue;
      }
      const outcome: RunOutcome = await runner.run(monitor, { secrets, organizationId: 'local' });
      results.push({ monitor: identityKey(monitor), outcome });
      // The text report streams, a monitor at a time; the machine formats are one document at the end.
      if (text) process.stdout.write(textReport({ monitor: identityKey(monitor), outcome }, colour));
    }
  } finally {
    await runner.close();
  }
  if (options.json === true) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else if (options.reporter !== 'text')
    process.stdout.write({ junit: junitReport, json: jsonReport, tap: tapReport }[options.reporter](results));
  // With one monitor its PASSED or FAILED line is already the summary.
  else if (results.length > 1) process.stdout.write(summaryLine(results, colour));
  return results.every((result) => result.outcome.success) ? 0 : EXIT_FAILED;
}

/** Commander's own usage errors (a missing -f, an unknown option) exit 2 as well, after printing themselves. */
function exitOnUsageError(error: CommanderError): never {
  process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
}

export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description('run monitors from a file once, on this machine, without a hub, and report every step')
    .requiredOption(
      '-f, --filename <path>',
      'a YAML/JSON file or a directory of them (API form or Monitor resources)',
    )
    .option('--env <environment>', "run as this environment instead of the monitor's own")
    .option(
      '--secrets <file>',
      'a JSON or YAML file of secret name -> value (MEERKAT_SECRET_<NAME> variables too)',
    )
    .option(
      '--grep <pattern>',
      'only the monitors whose project/environment/name matches this regular expression',
    )
    .addOption(
      new Option('--reporter <format>', 'text for people; junit, json or tap for CI systems')
        .choices(reporters)
        .default('text'),
    )
    .option('--json', 'print the run outcomes as a JSON array (before --reporter json; kept for scripts)')
    .exitOverride(exitOnUsageError)
    .action(async (options: TestOptions) => {
      try {
        process.exitCode = await testMonitors(options);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`meerkat test: ${error.message}\n`);
        process.exitCode = EXIT_USAGE;
      }
    });
}
