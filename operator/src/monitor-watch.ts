// A watch of every Monitor that heals itself. The client-node watch ends on any error (a 410 Gone after etcd
// compaction, an API server restart, a dropped connection); this loop then lists again and resumes from the list's
// resourceVersion, backing off while failures repeat. A relist every `resyncMs` is also the watchdog: a watch that
// silently stopped delivering is replaced, and every resource gets reconciled again (which repairs hub drift).
import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from './monitor-resource-status.js';
import type { MonitorKey } from './reconcile-monitor.js';

export interface MonitorWatchOptions {
  kubeConfig: KubeConfig;
  onChange: (key: MonitorKey) => void;
  log: Logger;
  resyncMs: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export function startMonitorWatch(options: MonitorWatchOptions): { stop(): Promise<void> } {
  const api = options.kubeConfig.makeApiClient(CustomObjectsApi);
  const watch = new Watch(options.kubeConfig);
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  let stopped = false;
  let wakeUp: () => void = () => {};
  let current: AbortController | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function listAndWatchOnce(): Promise<void> {
    const list = (await api.listClusterCustomObject({
      group: MONITOR_GROUP,
      version: MONITOR_VERSION,
      plural: MONITOR_PLURAL,
    })) as { metadata?: { resourceVersion?: string }; items: MonitorResource[] };
    options.log.debug(
      { count: list.items.length, resourceVersion: list.metadata?.resourceVersion },
      'listed Monitors',
    );
    for (const item of list.items) options.onChange(keyOf(item));
    await new Promise<void>((resolve, reject) => {
      const relist = setTimeout(() => {
        current?.abort();
        resolve();
      }, options.resyncMs);
      const finish = (error?: unknown) => {
        clearTimeout(relist);
        if (error && !stopped)
          reject(error instanceof Error ? error : new Error('the watch failed', { cause: error }));
        else resolve();
      };
      wakeUp = () => finish();
      watch
        .watch(
          `/apis/${MONITOR_GROUP}/${MONITOR_VERSION}/${MONITOR_PLURAL}`,
          { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
          (phase, object: MonitorResource & { code?: number }) => {
            if (phase === 'ERROR') {
              // 410 Gone: the resourceVersion was compacted away; only a new list can continue.
              current?.abort();
              finish(new Error(`watch error ${object.code ?? ''}`));
            } else if (phase !== 'BOOKMARK') {
              options.log.debug({ phase, monitor: keyOf(object) }, 'Monitor event');
              options.onChange(keyOf(object));
            }
          },
          // A watch the server ended normally (its timeout) resolves, and the loop lists again at once.
          (error?: unknown) => finish(error),
        )
        .then((controller) => {
          current = controller;
          if (stopped) controller.abort();
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
        options.log.warn({ err: error, retryInMs: backoffMs }, 'Monitor watch ended; listing again');
        await pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  })();

  return {
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
