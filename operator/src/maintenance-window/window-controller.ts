// The MaintenanceWindow controller: the same informer and keyed queue as Monitors', with reconcileWindow.
// It runs while this replica leads, beside the Monitor controller.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { HubAvailability } from '../hub-availability.js';
import { HubUnreachableError } from '../hub-availability.js';
import { kubeCustomResources } from '../kube-monitor-resources.js';
import type { ProjectPolicy } from '../project-tenancy.js';
import { createRequeueingQueue } from '../reconcile-result.js';
import { startResourceInformer, WATCH_BACKOFF } from '../resource-informer.js';
import { reconcileWindow, type HubWindows } from './reconcile-window.js';
import { WINDOW_PLURAL, type WindowResource, type WindowResourceStatus } from './window-resource.js';

export interface WindowControllerOptions {
  kubeConfig: KubeConfig;
  hub: HubWindows;
  log: Logger;
  availability: HubAvailability;
  resyncMs: number;
  /** A synced window is reconciled again this often (whether it is in force, drift); never when undefined. */
  refreshMs: number | undefined;
  namespace: string | undefined;
  projects: ProjectPolicy;
  now: () => Date;
}

export function startWindowController(options: WindowControllerOptions): { stop(): Promise<void> } {
  const log = options.log.child({ controller: 'maintenancewindows' });
  const queue = createRequeueingQueue({
    reconcile: (key) => reconcileWindow(key, dependencies),
    log,
    random: Math.random,
    ...(options.refreshMs === undefined ? {} : { refreshMs: options.refreshMs }),
    waitBeforeRetry: (error) =>
      error instanceof HubUnreachableError ? options.availability.whenBack() : undefined,
  });
  const generations = new Map<string, number | undefined>();
  const informer = startResourceInformer<WindowResource>({
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
    namespace: options.namespace,
    resyncMs: options.resyncMs,
    ...WATCH_BACKOFF,
    // The Monitor informer's restarts and relists stand for both in the metrics, as before.
    onRestart: () => {},
    onRelist: () => {},
    resumeFrom: undefined,
  });
  const dependencies = {
    hub: options.hub,
    resources: kubeCustomResources<WindowResource, WindowResourceStatus>(
      options.kubeConfig,
      WINDOW_PLURAL,
      informer,
    ),
    now: options.now,
    log,
    availability: options.availability,
    projects: options.projects,
    refreshMs: options.refreshMs,
  };
  return {
    async stop() {
      await informer.stop();
      await queue.stop();
    },
  };
}
