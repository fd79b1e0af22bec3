// Wires the operator together: the self-healing watch feeds the keyed queue, which runs reconcileMonitor against
// the hub's HTTP API and the Kubernetes API. Everything it talks to is passed in, so tests run it in-process.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeMonitorResources } from './kube-monitor-resources.js';
import { startMonitorWatch } from './monitor-watch.js';
import { reconcileMonitor, type HubMonitors } from './reconcile-monitor.js';
import { createReconcileQueue } from './reconcile-queue.js';

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  hub: HubMonitors;
  log: Logger;
  resyncMs: number;
  now?: () => Date;
}

export function startOperator(options: OperatorOptions): { stop(): Promise<void> } {
  const dependencies = {
    hub: options.hub,
    resources: kubeMonitorResources(options.kubeConfig),
    now: options.now ?? (() => new Date()),
    log: options.log,
  };
  const queue = createReconcileQueue({
    reconcile: (key) => reconcileMonitor(key, dependencies),
    log: options.log,
  });
  const watch = startMonitorWatch({
    kubeConfig: options.kubeConfig,
    onChange: queue.enqueue,
    log: options.log,
    resyncMs: options.resyncMs,
  });
  options.log.info('operator started: watching Monitors in all namespaces');
  return {
    async stop() {
      await watch.stop();
      await queue.stop();
    },
  };
}
