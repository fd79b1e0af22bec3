// One kind of meerkat.dev resource (Monitors, MaintenanceWindows) through client-node's informer (the ListWatch
// makeInformer builds, ADR 0043): it lists once, watches from the list's resourceVersion, and keeps every object in a cache that
// reconcile reads instead of GETting the object. What the informer leaves to its user, done here:
// - it stops on any watch or list error other than 410 Gone (API server restarts, a dropped connection, a missing
//   CRD): it is started again after a backoff, resuming the watch from the last resourceVersion it saw, and each
//   such restart is counted (meerkat_operator_watch_restarts_total, the MeerkatOperatorWatchLost alert);
// - on 410 Gone (the resourceVersion compacted away) it lists again by itself; that list is counted as a restart
//   too, as the hand-rolled watch before it did;
// - every `resyncMs` (a planned resync, counted as a relist, not a failure) the watch is replaced, so one that
//   silently stopped delivering catches up from the cache's resourceVersion, and every cached object is handed to
//   `onChange` again, so each resource is reconciled again (which repairs hub drift).
import {
  CustomObjectsApi,
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeStatusOf } from '../../hub/src/kube/kube-status.js';
import { createBackoff } from '../../hub/src/system/backoff.js';
import { MONITOR_GROUP, MONITOR_VERSION, type MonitorResource } from './monitor-resource-status.js';
import { trimForCache } from './trim-for-cache.js';
import type { MonitorKey } from './reconcile-monitor.js';

/** How a resource came: a watch event, or the planned resync of the cache. */
export type ResourceChange = 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';

type Addressed = Pick<MonitorResource, 'metadata'>;

export interface ResourceInformerOptions<R extends Addressed> {
  kubeConfig: KubeConfig;
  /** The meerkat.dev resource: monitors or maintenancewindows. */
  plural: string;
  onChange: (key: MonitorKey, change: ResourceChange, resource: R) => void;
  /** Only this namespace's resources; every namespace when undefined. */
  namespace: string | undefined;
  log: Logger;
  resyncMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Called each time the informer stopped on an error (or was answered 410 Gone) and lists or watches again. */
  onRestart: (error: unknown) => void;
  /** Called at each planned resync (every `resyncMs`), which is not a restart. */
  onRelist: () => void;
  /** Called once the cache holds its first complete listing, every listed object handed to `onChange`. */
  onListed?: () => void;
  /**
   * Watch from this resourceVersion instead of listing first, as a restarted informer with a remembered version
   * would (the cache starts empty). When it is too old, the API server answers 410 Gone and the informer lists.
   */
  resumeFrom: string | undefined;
}

/** How the informer backs off while the API server keeps failing it (as the hand-rolled watch did). */
export const WATCH_BACKOFF = { initialBackoffMs: 500, maxBackoffMs: 30_000 };

export interface ResourceInformer<R> {
  /** The lister: the object as the cache holds it, no API call. */
  get(key: MonitorKey): R | undefined;
  /** True while a watch request is open on the API server; the operator's readiness. */
  isEstablished(): boolean;
  /** True once the cache holds a complete listing (not while it only resumed a watch from a remembered version). */
  hasListed(): boolean;
  stop(): Promise<void>;
}

export function startResourceInformer<R extends Addressed>(
  options: ResourceInformerOptions<R>,
): ResourceInformer<R> {
  const api = options.kubeConfig.makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: options.plural };
  const { namespace } = options;
  const path =
    namespace === undefined
      ? `/apis/${MONITOR_GROUP}/${MONITOR_VERSION}/${options.plural}`
      : `/apis/${MONITOR_GROUP}/${MONITOR_VERSION}/namespaces/${namespace}/${options.plural}`;
  let resumeFrom = options.resumeFrom;
  let stopped = false;
  let listed = false;
  const backoff = createBackoff({ initialMs: options.initialBackoffMs, maxMs: options.maxBackoffMs });
  let restartTimer: NodeJS.Timeout | undefined;

  async function list() {
    if (resumeFrom !== undefined) {
      // An empty list at the remembered version: the informer then watches from it.
      const resourceVersion = resumeFrom;
      resumeFrom = undefined;
      return { items: [] as R[], metadata: { resourceVersion } };
    }
    const answer = (await (namespace === undefined
      ? api.listClusterCustomObject(target)
      : api.listNamespacedCustomObject({ ...target, namespace }))) as {
      metadata?: { resourceVersion?: string };
      items: R[];
    };
    // Stopped while listing: the informer would otherwise open a watch nobody stops.
    if (stopped) throw Object.assign(new Error('the informer stopped'), { name: 'AbortError' });
    answer.items.forEach(trimForCache);
    // The informer puts the items in its cache (calling onChange for each) in the microtask that takes this answer,
    // so by the time an immediate callback runs the cache is complete.
    if (!listed)
      setImmediate(() => {
        if (listed || stopped) return;
        listed = true;
        options.onListed?.();
      });
    options.log.debug(
      {
        plural: options.plural,
        count: answer.items.length,
        resourceVersion: answer.metadata?.resourceVersion,
      },
      'listed',
    );
    backoff.reset();
    return answer;
  }

  // What makeInformer builds (a ListWatch not started yet), with a Watch that says whether its request is open.
  // The cache holds the objects as the API server sent them, which are R.
  // The informer lists again by itself after 410 Gone; the hand-rolled watch counted that as a restart.
  const watch = new ObservedWatch(options.kubeConfig, () =>
    options.onRestart(new Error('the watch was answered 410 Gone; listing again')),
  );
  const informer = new ListWatch<KubernetesObject>(
    path,
    watch,
    list as unknown as ListPromise<KubernetesObject>,
    false,
  );
  const deliver = (change: ResourceChange) => (object: KubernetesObject) => {
    const resource = object as unknown as R;
    // Any event proves the watch works: the next failure starts its backoff afresh.
    backoff.reset();
    options.onChange(keyOf(resource), change, resource);
  };
  informer.on('add', deliver('ADDED'));
  informer.on('update', deliver('MODIFIED'));
  informer.on('delete', deliver('DELETED'));
  const start = () => void informer.start().catch(onError);
  function onError(error: unknown): void {
    // Stopping aborts the watch request, which the informer reports as an error: that one is ours.
    if (stopped || isAbort(error)) return;
    options.onRestart(error);
    const retryInMs = backoff.next();
    if (kubeStatusOf(error) === 404)
      options.log.error(
        { retryInMs },
        `the CRD ${options.plural}.${MONITOR_GROUP} is not installed: kubectl apply -f crds/${options.plural}.${MONITOR_GROUP}.yaml`,
      );
    else options.log.warn({ err: error, retryInMs }, 'the watch ended; watching again');
    clearTimeout(restartTimer);
    restartTimer = setTimeout(start, retryInMs);
  }
  informer.on('error', onError);

  async function resync(): Promise<void> {
    options.onRelist();
    clearTimeout(restartTimer);
    await informer.stop();
    // Let the aborted request report itself before the informer starts its next one.
    await new Promise((resolve) => setImmediate(resolve));
    if (stopped) return;
    for (const object of informer.list()) {
      const resource = object as unknown as R;
      options.onChange(keyOf(resource), 'LISTED', resource);
    }
    start();
  }
  const resyncTimer = setInterval(() => void resync(), options.resyncMs);
  start();

  return {
    get: (key) => informer.get(key.name, key.namespace) as R | undefined,
    isEstablished: () => watch.isOpen && !stopped,
    hasListed: () => listed,
    async stop() {
      stopped = true;
      clearInterval(resyncTimer);
      clearTimeout(restartTimer);
      await informer.stop();
    },
  };
}

/**
 * client-node's Watch, telling whether its request is open (answered 200 by the API server and not ended), and
 * when the API server answered 410 Gone (in the stream or as the answer), after which the informer lists again.
 */
class ObservedWatch extends Watch {
  isOpen = false;

  constructor(
    kubeConfig: KubeConfig,
    private readonly onGone: () => void,
  ) {
    super(kubeConfig);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    let ended = false;
    const observe = (phase: string, object: unknown, event?: unknown) => {
      if (phase === 'ERROR' && (object as { code?: number } | undefined)?.code === 410) this.onGone();
      callback(phase, trimForCache(object), event);
    };
    const controller = await super.watch(path, queryParams, observe, (error: unknown) => {
      ended = true;
      this.isOpen = false;
      if ((error as { statusCode?: number } | null)?.statusCode === 410) this.onGone();
      done(error);
    });
    this.isOpen = !ended;
    return controller;
  }
}

function isAbort(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || (error as { type?: string }).type === 'aborted')
  );
}

function keyOf(resource: Addressed): MonitorKey {
  return { namespace: resource.metadata.namespace, name: resource.metadata.name };
}
