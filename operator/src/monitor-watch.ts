// A watch of every Monitor that heals itself. The client-node watch ends on any error (a 410 Gone after etcd
// compaction, an API server restart, a dropped connection); this loop then lists again and resumes from the list's
// resourceVersion, backing off while failures repeat. A relist every `resyncMs` is also the watchdog: a watch that
// silently stopped delivering is replaced, and every resource gets reconciled again (which repairs hub drift).
import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeStatusOf } from '../../hub/src/kube/kube-status.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from './monitor-resource-status.js';
import type { MonitorKey } from './reconcile-monitor.js';

/** How a resource came to the watch: a watch event, or an item of a (re)list. */
export type MonitorChange = 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';

export interface MonitorWatchOptions {
  kubeConfig: KubeConfig;
  onChange: (key: MonitorKey, change: MonitorChange, resource: MonitorResource) => void;
  /** Only this namespace's Monitors; every namespace when absent. */
  namespace?: string;
  /** Another kind of meerkat.dev resource to watch (maintenancewindows); Monitors when absent. */
  plural?: string;
  log: Logger;
  resyncMs: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Resume the first watch from this resourceVersion instead of listing, as a restarted informer with a remembered
   * version does. When it is too old the API server answers 410 Gone and the loop lists again.
   */
  resumeFrom?: string;
  /** Called each time the watch ended in an error and the loop lists again (counted as a metric). */
  onRestart?: (error: unknown) => void;
  /** Called at each planned relist (every `resyncMs`), which is not a restart. */
  onRelist?: () => void;
}

export interface MonitorWatch {
  /** True while a watch request is open on the API server; the operator's readiness. */
  isEstablished(): boolean;
  stop(): Promise<void>;
}

export function startMonitorWatch(options: MonitorWatchOptions): MonitorWatch {
  const api = options.kubeConfig.makeApiClient(CustomObjectsApi);
  const watch = new Watch(options.kubeConfig);
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const plural = options.plural ?? MONITOR_PLURAL;
  let stopped = false;
  let wakeUp: () => void = () => {};
  let current: AbortController | undefined;
  let established = false;
  let resumeFrom = options.resumeFrom;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function list(): Promise<string | undefined> {
    const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural };
    const answer = (await (options.namespace === undefined
      ? api.listClusterCustomObject(target)
      : api.listNamespacedCustomObject({ ...target, namespace: options.namespace }))) as {
      metadata?: { resourceVersion?: string };
      items: MonitorResource[];
    };
    const resourceVersion = answer.metadata?.resourceVersion;
    options.log.debug({ count: answer.items.length, resourceVersion }, 'listed Monitors');
    for (const item of answer.items) options.onChange(keyOf(item), 'LISTED', item);
    return resourceVersion;
  }

  async function listAndWatchOnce(): Promise<void> {
    const resourceVersion = resumeFrom ?? (await list());
    resumeFrom = undefined;
    current = undefined;
    await new Promise<void>((resolve, reject) => {
      let relisting = false;
      const relist = setTimeout(() => {
        // The abort ends the watch with an AbortError, which is this plan, not a failure.
        relisting = true;
        options.onRelist?.();
        current?.abort();
        finish();
      }, options.resyncMs);
      let done = false;
      const finish = (error?: unknown) => {
        done = true;
        established = false;
        clearTimeout(relist);
        if (error && !stopped && !relisting)
          reject(error instanceof Error ? error : new Error('the watch failed', { cause: error }));
        else resolve();
      };
      wakeUp = () => finish();
      watch
        .watch(
          options.namespace === undefined
            ? `/apis/${MONITOR_GROUP}/${MONITOR_VERSION}/${plural}`
            : `/apis/${MONITOR_GROUP}/${MONITOR_VERSION}/namespaces/${options.namespace}/${plural}`,
          { resourceVersion, allowWatchBookmarks: true },
          (phase, object: MonitorResource & { code?: number }) => {
            if (phase === 'ERROR') {
              // 410 Gone: the resourceVersion was compacted away; only a new list can continue.
              current?.abort();
              finish(new Error(`watch error ${object.code ?? ''}`));
            } else if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED') {
              options.log.debug({ phase, monitor: keyOf(object) }, 'Monitor event');
              options.onChange(keyOf(object), phase, object);
            }
          },
          // A watch the server ended normally (its timeout) resolves, and the loop lists again at once.
          (error?: unknown) => finish(error),
        )
        .then((controller) => {
          current = controller;
          established = !stopped && !done;
          if (stopped || done) controller.abort();
        }, finish);
    });
  }

  const loop = (async () => {
    let backoffMs = initialBackoffMs;
    while (!stopped) {
      try {
        await listAndWatchOnce();
        backoffMs = initialBackoffMs;
      } catch (error) {
        if (stopped) break;
        options.onRestart?.(error);
        if (kubeStatusOf(error) === 404)
          options.log.error(
            { retryInMs: backoffMs },
            `the CRD ${plural}.${MONITOR_GROUP} is not installed: kubectl apply -f crds/${plural}.${MONITOR_GROUP}.yaml`,
          );
        else options.log.warn({ err: error, retryInMs: backoffMs }, 'Monitor watch ended; listing again');
        await pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  })();

  return {
    isEstablished: () => established,
    async stop() {
      stopped = true;
      current?.abort();
      wakeUp();
      await loop;
    },
  };
}

function keyOf(resource: MonitorResource): MonitorKey {
  return { namespace: resource.metadata.namespace, name: resource.metadata.name };
}
