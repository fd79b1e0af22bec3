import type { Command } from 'commander';
import type { Run } from '../contract/run.js';
import type { HubClient } from '../client/hub-client.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { age } from './resource-columns.js';
import { failingSteps, stepsOf } from './run-steps.js';

/** A run by id with its monitor (undefined when the monitor was deleted since), or exit 1 when there is none. */
export async function runWithMonitor(hub: HubClient, id: string): Promise<{ run: Run; monitor?: Monitor }> {
  const run = await hub.getRun(id);
  if (run === undefined) throw new CommandFailure(ExitCode.failed, `run ${id} not found`);
  const monitor = await hub.getMonitor(run.monitorId);
  return monitor === undefined ? { run } : { run, monitor };
}

/** `name (mon_...)`, or the id alone for a monitor that is gone. */
export const monitorLabel = (monitorId: string, monitor: Pick<Monitor, 'name'> | undefined) =>
  monitor === undefined ? monitorId : `${monitor.name} (${monitorId})`;

function formatRunDescription(run: Run, monitor: Monitor | undefined, now: Date): string {
  const result = run.success === null ? '<none>' : run.success ? 'pass' : 'fail';
  const steps = stepsOf(run);
  const lines = [
    `ID:            ${run.id}`,
    `Monitor:       ${monitorLabel(run.monitorId, monitor)}`,
    ...(monitor === undefined ? [] : [`Project:       ${monitor.project}`]),
    `Environment:   ${run.environment}`,
    `Location:      ${run.location}`,
    `Status:        ${run.status}`,
    `Result:        ${result}`,
    `Trigger:       ${run.triggeredBy}`,
    `Group:         ${run.executionGroupId}`,
    `Created:       ${run.createdAt} (${age(run.createdAt, now)} ago)`,
    `Started:       ${run.startedAt ?? '<none>'}`,
    `Completed:     ${run.completedAt ?? '<none>'}`,
    `Duration:      ${run.duration_ms === null ? '<none>' : `${Math.round(run.duration_ms)} ms`}`,
    'Errors:',
    ...(run.errors.length === 0 ? ['  <none>'] : run.errors.map((error) => `  ${error}`)),
    'Steps:',
    ...(steps.length === 0
      ? ['  <none>']
      : steps.map(
          (s) =>
            `  ${s.nodeId ?? '?'}  ${s.type ?? ''}  ${s.status ?? '?'}${s.durationMs == null ? '' : `  ${Math.round(s.durationMs)} ms`}`,
        )),
  ];
  const failing = failingSteps(run, '  ');
  if (failing.length > 0) lines.push('Failing steps:', ...failing);
  return lines.join('\n') + '\n';
}

export function registerDescribeRun(describe: Command): void {
  hubOptions(describe.command('run <id>').alias('runs'))
    .description(
      'a run: its monitor, where and when it ran, its result, errors and steps (meerkat logs: the log)',
    )
    .action(async (id: string, options: HubOptions) => {
      const { run, monitor } = await runWithMonitor(connectToHub(options), id);
      process.stdout.write(formatRunDescription(run, monitor, new Date()));
    });
}
