import type { Logger } from 'pino';
import type { MonitorDefinition } from '../contract/monitor-definition.js';
import { definitionOf } from '../contract/stored-monitor.js';
import type { HubClient } from '../cli/hub-client.js';
import { createMonitorRunner } from '../runner/monitor-runner.js';
import { MONITOR_DELETED_ERROR } from '../runner/run-outcome.js';
import type { SecretReader } from '../secrets/secret-store.js';

/** Secrets read over the hub's API (`POST /secrets/resolve`): a runner Job holds no database or key. */
export function hubSecretReader(hub: HubClient): SecretReader {
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
 * The whole life of a runner Job: take the run, fetch its monitor, execute it with the same runner code as the
 * workers, report the outcome once. Returns whether the outcome was a success (the exit code is about reporting).
 */
export async function executeRemoteRun(options: {
  hub: HubClient;
  runId: string;
  organizationId: string;
  requestTimeoutMs: number;
  runTimeoutMs: number;
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
  });
  try {
    const outcome = await runner.run(
      { ...(definition as MonitorDefinition), environment: run.environment },
      { secrets: hubSecretReader(hub), organizationId: options.organizationId },
    );
    await hub.reportRunResult(runId, {
      success: outcome.success,
      errors: outcome.errors,
      steps: outcome.steps as unknown as Array<Record<string, unknown>>,
      durationMs: outcome.durationMs,
      completedAt: outcome.completedAt.toISOString(),
    });
    log.info({ runId, success: outcome.success, durationMs: outcome.durationMs }, 'run reported');
    return outcome.success;
  } finally {
    await runner.close();
  }
}
