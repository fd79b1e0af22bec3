import type { Logger } from 'pino';
import type { MonitorDefinition } from '../contract/monitor-definition.js';
import { definitionOf } from '../contract/stored-monitor.js';
import { HubRequestError, type HubClient } from '../client/hub-client.js';
import type { RunResultReport } from '../contract/run.js';
import { storableJson } from '../contract/storable-text.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import { createMonitorRunner } from '../runner/monitor-runner.js';
import { MONITOR_DELETED_ERROR } from '../runner/run-outcome.js';
import type { SecretReader } from '../secrets/secret-store.js';
import { systemFailureError } from '../runs/system-failure.js';

/** Secrets read over the hub's API (`POST /secrets/resolve`): a runner Job holds no database or key. */
function hubSecretReader(hub: HubClient): SecretReader {
  return {
    read: (scope, name, version) =>
      hub.resolveSecret({
        organizationId: scope.organizationId,
        environment: scope.environment,
        name,
        ...(version !== undefined && version !== 'latest' ? { version } : {}),
      }),
  };
}

/**
 * Reports the outcome, made storable first (the hub refuses NUL in what it is sent, as its database would). A
 * result the hub still refuses (400, or 413 over its body limit) is replaced by a failure that says so, so the
 * run ends with the reason rather than waiting for the reaper; anything else (the hub unreachable) is thrown,
 * failing the Job.
 */
async function reportOrFail(hub: HubClient, runId: string, log: Logger, result: RunResultReport) {
  try {
    return await hub.reportRunResult(runId, storableJson(result));
  } catch (error) {
    if (!(error instanceof HubRequestError) || (error.status !== 400 && error.status !== 413)) throw error;
    log.error({ err: error, runId }, 'the hub refused the run result; reporting the run failed');
    const why = `the hub refused it: HTTP ${error.status}, ${error.message.slice(0, 200)}`;
    return hub.reportRunResult(runId, {
      success: false,
      errors: [systemFailureError(`its result could not be stored (${why})`)],
      steps: [],
      durationMs: result.durationMs,
      ...(result.completedAt === undefined ? {} : { completedAt: result.completedAt }),
    });
  }
}

/**
 * The whole life of a runner Job: take the run, fetch its monitor, execute it with the same runner code as the
 * workers, report the outcome once. Returns whether the outcome was a success (the exit code is about reporting).
 */
export async function executeRemoteRun(options: {
  hub: HubClient;
  runId: string;
  organizationId: string;
  requestTimeoutMs: number;
  runTimeoutMs: number;
  /** ASSERTION_BUDGET_MS; the runner's default when absent. */
  assertionBudgetMs?: number;
  /** The policy of the run's location, from the EGRESS_* variables the hub put in the Job. */
  egress: EgressPolicy;
  log: Logger;
}): Promise<boolean> {
  const { hub, runId, log } = options;
  const run = await hub.startRun(runId);
  const monitor = await hub.getMonitor(run.monitorId);
  if (monitor === undefined) {
    await hub.reportRunResult(runId, {
      success: false,
      errors: [MONITOR_DELETED_ERROR],
      steps: [],
      durationMs: 0,
    });
    return false;
  }
  const definition = definitionOf(monitor);
  const runner = createMonitorRunner({
    requestTimeoutMs: options.requestTimeoutMs,
    runTimeoutMs: options.runTimeoutMs,
    assertionBudgetMs: options.assertionBudgetMs,
    egress: options.egress,
  });
  try {
    const outcome = await runner.run(
      { ...(definition as MonitorDefinition), environment: run.environment },
      { secrets: hubSecretReader(hub), organizationId: options.organizationId },
    );
    const reported = await reportOrFail(hub, runId, log, {
      success: outcome.success,
      errors: outcome.errors,
      steps: outcome.steps as unknown as Array<Record<string, unknown>>,
      durationMs: outcome.durationMs,
      completedAt: outcome.completedAt.toISOString(),
    });
    log.info({ runId, success: reported.success, durationMs: outcome.durationMs }, 'run reported');
    return reported.success === true;
  } finally {
    await runner.close();
  }
}
