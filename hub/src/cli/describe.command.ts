import type { Command } from 'commander';
import type { Monitor } from '../contract/monitor-definition.js';
import type { Run } from '../contract/run.js';
import { age, describeLastRun } from './resource-columns.js';
import type { MonitorMetricsFigures } from '../client/hub-client.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { findMonitor, type MonitorScope } from './monitor-lookup.js';
import { registerDescribeRun } from './describe-run.js';
import { failingSteps } from './run-steps.js';

function describeNodes(monitor: Monitor): string[] {
  return monitor.nodes.map((node) => {
    if (node.type === 'HTTP_REQUEST') {
      const text = (v: unknown) => (typeof v === 'string' ? v : '<secret>');
      return `  ${node.id}  HTTP_REQUEST  ${node.method} ${text(node.base)}${text(node.path)}`;
    }
    if (node.type === 'WAIT') return `  ${node.id}  WAIT  ${node.duration_ms} ms`;
    if (node.type === 'TCP_CONNECT')
      return `  ${node.id}  TCP_CONNECT  ${node.tls === true ? 'tls' : 'tcp'}://${node.host}:${node.port}`;
    if (node.type === 'DNS_QUERY')
      return `  ${node.id}  DNS_QUERY  ${node.record_type} ${node.name}${node.resolver === undefined ? '' : ` @${node.resolver}`}`;
    if (node.type === 'GRPC_HEALTH_CHECK')
      return `  ${node.id}  GRPC_HEALTH_CHECK  ${node.host}:${node.port} ${node.service ?? ''}`.trimEnd();
    return `  ${node.id}  ASSERTION  ${node.assertions.length} assertion(s)`;
  });
}

function describeHealth(health: MonitorMetricsFigures | undefined, now: Date): string[] {
  if (health === undefined) return ['Health (24h):  <unknown>'];
  return [
    `Health (24h):  ${health.status}`,
    `  Runs:        ${health.runs.total} (${health.runs.successful} passed, ${health.runs.failed} failed, ${health.runs.successRate.toFixed(1)}%)`,
    `  P95:         ${Math.round(health.latency.p95DurationMs)} ms`,
    `  Last run:    ${describeLastRun(health.lastRun, now)}`,
  ];
}

/** kubectl describe's layout: the object's fields, then what happened to it lately. */
function formatMonitorDescription(
  monitor: Monitor,
  health: MonitorMetricsFigures | undefined,
  runs: Run[],
  now: Date,
): string {
  const lines = [
    `Name:          ${monitor.name}`,
    `ID:            ${monitor.id}`,
    `Project:       ${monitor.project}`,
    `Environment:   ${monitor.environment}`,
    `Version:       ${monitor.version}`,
    `Every:         ${monitor.frequency.every} ${monitor.frequency.unit.toLowerCase()}(s)`,
    `Locations:     ${(monitor.locations ?? ['default']).join(', ')}`,
    `Updated:       ${monitor.updatedAt}`,
    'Nodes:',
    ...describeNodes(monitor),
    `Edges:         ${monitor.edges.map((e) => `${e.from} -> ${e.to}`).join(', ') || '<none>'}`,
    `Notifications: ${(monitor.notifications ?? []).map((n) => `${n.trigger.type} via ${n.routing.channelType}`).join(', ') || '<none>'}`,
    ...describeHealth(health, now),
    'Last runs:',
  ];
  if (runs.length === 0) lines.push('  <none>');
  for (const run of runs) {
    const result = run.success === null ? run.status : run.success ? 'pass' : 'fail';
    const took = run.duration_ms === null ? '' : ` in ${Math.round(run.duration_ms)} ms`;
    lines.push(
      `  ${run.id}  ${run.location}  ${result}${took}  ${age(run.createdAt, now)} ago  (${run.triggeredBy})`,
    );
    lines.push(...failingSteps(run));
  }
  return lines.join('\n') + '\n';
}

export function registerDescribeCommand(program: Command): void {
  const describe = program.command('describe').description('show one resource in detail (kubectl describe)');
  hubOptions(describe.command('monitor <name>').alias('monitors'))
    .description('a monitor: its definition, its health and its last runs with their failing steps')
    .option('--project <project>', 'when the name is used in several projects')
    .option('--environment <environment>', 'when the name is used in several environments')
    .option('--runs <n>', 'how many of the last runs to show (1 to 100)', '5')
    .action(async (name: string, options: HubOptions & MonitorScope & { runs: string }) => {
      const hub = connectToHub(options);
      const monitor = await findMonitor(hub, name, options);
      const limit = Math.min(100, Math.max(1, Number(options.runs) || 5));
      const [health, runs] = [
        await hub.getMonitorMetrics(monitor.id),
        await hub.listRuns({ monitorId: monitor.id, limit }),
      ];
      process.stdout.write(formatMonitorDescription(monitor, health, runs, new Date()));
    });
  registerDescribeRun(describe);
}
