// Wires the operator together: leader election decides whether this replica runs the controller; the controller
// is the self-healing watch feeding the keyed queue, which runs reconcileMonitor against the hub's HTTP API and the
// Kubernetes API. Everything it talks to is passed in, so tests run several instances in-process.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { HealthCheck } from './health-server.js';
import { kubeMonitorResources } from './kube-monitor-resources.js';
import { startLeaderElection, type LeaderElection } from './leader-election.js';
import { kubeMonitorEvents } from './monitor-events.js';
import { startMonitorWatch, type MonitorWatch } from './monitor-watch.js';
import { createOperatorMetrics } from './operator-metrics.js';
import { reconcileMonitor, type HubMonitors } from './reconcile-monitor.js';
import { createReconcileQueue } from './reconcile-queue.js';

export interface LeaderElectionSettings {
  namespace: string;
  leaseName: string;
  /** Unique per replica (the Pod name). */
  identity: string;
  leaseDurationMs: number;
  renewIntervalMs: number;
}

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  hub: HubMonitors;
  log: Logger;
  resyncMs: number;
  /** Each synced resource is reconciled again this often, which refreshes its health; never when absent. */
  refreshMs?: number;
  /** Absent: this process is the only replica and always leads. */
  leaderElection?: LeaderElectionSettings;
  /** The process's registry for the operator metrics; a private one when absent. */
  registry?: Registry;
  /** See MonitorWatchOptions.resumeFrom. */
  resumeWatchFrom?: string;
  now?: () => Date;
}

export interface RunningOperator {
  isLeader: () => boolean;
  live: () => HealthCheck;
  ready: () => HealthCheck;
  stop(): Promise<void>;
}

export function startOperator(options: OperatorOptions): RunningOperator {
  const registry = options.registry ?? new Registry();
  const metrics = createOperatorMetrics(registry);
  const dependencies = {
    hub: options.hub,
    resources: kubeMonitorResources(options.kubeConfig),
    events: kubeMonitorEvents(options.kubeConfig, options.log),
    now: options.now ?? (() => new Date()),
    log: options.log,
  };
  let resumeFrom = options.resumeWatchFrom;
  let controller: { watch: MonitorWatch; stop(): Promise<void> } | undefined;

  function startController() {
    const queue = createReconcileQueue({
      reconcile: (key) => metrics.measure(() => reconcileMonitor(key, dependencies)),
      log: options.log,
      ...(options.refreshMs === undefined ? {} : { refreshMs: options.refreshMs }),
    });
    const watch = startMonitorWatch({
      kubeConfig: options.kubeConfig,
      onChange: queue.enqueue,
      log: options.log,
      resyncMs: options.resyncMs,
      onRestart: () => metrics.countWatchRestart(),
      ...(resumeFrom === undefined ? {} : { resumeFrom }),
    });
    resumeFrom = undefined;
    options.log.info('controller started: watching Monitors in all namespaces');
    controller = {
      watch,
      async stop() {
        controller = undefined;
        await watch.stop();
        await queue.stop();
      },
    };
  }

  let election: LeaderElection | undefined;
  if (options.leaderElection) {
    election = startLeaderElection({
      kubeConfig: options.kubeConfig,
      ...options.leaderElection,
      onStartedLeading: startController,
      onStoppedLeading: async () => controller?.stop(),
      log: options.log,
      ...(options.now ? { now: options.now } : {}),
    });
  } else {
    startController();
  }
  let stopped = false;

  return {
    isLeader: () => controller !== undefined,
    live: () => (stopped ? { ok: false, reason: 'stopping' } : { ok: true, reason: 'running' }),
    ready: () => {
      if (stopped) return { ok: false, reason: 'stopping' };
      // A standby replica is ready: it is healthy and takes over when the leader goes.
      if (!controller) return { ok: true, reason: 'standing by; another replica holds the lease' };
      return controller.watch.isEstablished()
        ? { ok: true, reason: 'leading; the Monitor watch is established' }
        : { ok: false, reason: 'leading; the Monitor watch is not established yet' };
    },
    async stop() {
      stopped = true;
      await election?.stop();
      await controller?.stop();
    },
  };
}
