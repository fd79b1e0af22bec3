// The MaintenanceWindow controller: the same self-healing watch and keyed queue as Monitors', with reconcileWindow.
// It runs while this replica leads, beside the Monitor controller.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { HubAvailability } from '../hub-availability.js';
import { HubUnreachableError } from '../hub-availability.js';
import { kubeCustomResources } from '../kube-monitor-resources.js';
import { startMonitorWatch } from '../monitor-watch.js';
import type { ProjectPolicy } from '../project-tenancy.js';
import { createReconcileQueue } from '../reconcile-queue.js';
import { reconcileWindow, type HubWindows } from './reconcile-window.js';
import { WINDOW_PLURAL, type WindowResource, type WindowResourceStatus } from './window-resource.js';

export interface WindowControllerOptions {
  kubeConfig: KubeConfig;
  hub: HubWindows;
  log: Logger;
  availability: HubAvailability;
  resyncMs: number;
  refreshMs?: number;
  namespace?: string;
  projects?: ProjectPolicy;
  now: () => Date;
}

export function startWindowController(options: WindowControllerOptions): { stop(): Promise<void> } {
  const log = options.log.child({ controller: 'maintenancewindows' });
  const dependencies = {
    hub: options.hub,
    resources: kubeCustomResources<WindowResource, WindowResourceStatus>(options.kubeConfig, WINDOW_PLURAL),
    now: options.now,
    log,
    availability: options.availability,
    ...(options.projects ? { projects: options.projects } : {}),
  };
  const queue = createReconcileQueue({
    reconcile: (key) => reconcileWindow(key, dependencies),
    log,
    ...(options.refreshMs === undefined ? {} : { refreshMs: options.refreshMs }),
    waitBeforeRetry: (error) =>
      error instanceof HubUnreachableError ? options.availability.whenBack() : undefined,
  });
  const generations = new Map<string, number | undefined>();
  const watch = startMonitorWatch({
    kubeConfig: options.kubeConfig,
    plural: WINDOW_PLURAL,
    // Own status and finalizer writes come back as MODIFIED events: only a new generation or a deletion counts.
    onChange: (key, change, resource) => {
      const id = `${key.namespace}/${key.name}`;
      const generation = resource.metadata.generation;
      const seen = generations.get(id);
      if (change === 'DELETED') generations.delete(id);
      else generations.set(id, generation);
      if (
        change === 'DELETED' ||
        seen !== generation ||
        resource.metadata.deletionTimestamp ||
        !queue.has(key)
      )
        queue.enqueue(key);
    },
    log,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    resyncMs: options.resyncMs,
  });
  return {
    async stop() {
      await watch.stop();
      await queue.stop();
    },
  };
}
