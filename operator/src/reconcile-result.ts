// What a reconcile asks of its queue, as controller-runtime's reconcile.Result (ADR 0043): run again after
// `requeueAfterMs`, or only when the resource changes. A failure is not a result: the reconcile rejects and the
// queue retries it with backoff. `createRequeueingQueue` honours the delay on top of the keyed queue
// (reconcile-queue.ts): the inner queue runs each pass and its retries, this layer holds the keys that asked to
// come back, each on a timer with up to a fifth added at random (so resources created together do not come back
// together), and hands them to the inner queue when it fires or when a change of the resource comes first.
import { createReconcileQueue, type ReconcileQueueOptions } from './reconcile-queue.js';
import type { MonitorKey } from './reconcile-monitor.js';

export interface ReconcileResult {
  /** Reconcile again after this long; undefined: nothing to do until the resource changes. */
  requeueAfterMs?: number;
}

/** Nothing more to do until the resource changes. */
export const DONE: ReconcileResult = {};

/** Come back after `refreshMs` (undefined: never), to refresh what changes in the hub without the resource. */
export const refreshAfter = (refreshMs: number | undefined): ReconcileResult =>
  refreshMs === undefined ? DONE : { requeueAfterMs: refreshMs };

export interface RequeueingQueueOptions extends Omit<ReconcileQueueOptions, 'reconcile'> {
  reconcile: (key: MonitorKey) => Promise<ReconcileResult>;
  random: () => number;
}

export function createRequeueingQueue(options: RequeueingQueueOptions) {
  const timers = new Map<string, NodeJS.Timeout>();
  const idOf = (key: MonitorKey) => `${key.namespace}/${key.name}`;
  const cancel = (key: MonitorKey) => {
    clearTimeout(timers.get(idOf(key)));
    timers.delete(idOf(key));
  };
  let stopped = false;
  const queue = createReconcileQueue({
    ...options,
    reconcile: async (key) => {
      const result = await options.reconcile(key);
      if (result.requeueAfterMs !== undefined && !stopped) {
        const delay = result.requeueAfterMs * (1 + 0.2 * options.random());
        cancel(key);
        timers.set(
          idOf(key),
          setTimeout(() => {
            timers.delete(idOf(key));
            queue.enqueue(key);
          }, delay),
        );
      }
      // The inner queue keeps no timer of its own: this layer owns the requeue.
      return undefined;
    },
  });
  return {
    enqueue(key: MonitorKey): void {
      cancel(key);
      queue.enqueue(key);
    },
    depth: queue.depth,
    /** Whether the key is known: queued, running, waiting for a retry, or for its requeue. */
    has: (key: MonitorKey) => queue.has(key) || timers.has(idOf(key)),
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await queue.stop();
    },
  };
}
export type RequeueingQueue = ReturnType<typeof createRequeueingQueue>;

/**
 * The frame every reconcile shares: the resource from the informer's cache (nothing to do when it is gone), then
 * its deletion (finalizer work, nothing after) or its sync.
 */
export async function reconcileCached<R extends { metadata: { deletionTimestamp?: unknown } }>(
  resource: R | undefined,
  passes: { deletion: (resource: R) => Promise<void>; sync: (resource: R) => Promise<ReconcileResult> },
): Promise<ReconcileResult> {
  if (!resource) return DONE;
  if (!resource.metadata.deletionTimestamp) return passes.sync(resource);
  await passes.deletion(resource);
  return DONE;
}
