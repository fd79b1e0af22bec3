// A work queue keyed by namespace/name, as controller-runtime's: at most `workers` reconciles run at once, a key
// is queued at most once and never runs twice at the same time (events arriving meanwhile fold into one more
// pass), a failed pass is retried with per-key exponential backoff (jittered, capped), and a pass that resolves
// 'refresh' runs again after `refreshMs` plus up to a fifth of it at random, so Monitors created together do not
// refresh together. A failure for which `waitBeforeRetry` gives a promise (the hub is down) is retried when that
// resolves instead of on its own timer. Keys wait in two lanes (ADR 0049): a key with a change to deliver
// (`isUrgent`: a new generation, a creation, a deletion, run-now) goes ahead of every periodic refresh, so an edit
// never waits behind a fleet's worth of health refreshes; within a lane, first come first served.
import type { Logger } from 'pino';
import { backoffDelayMs } from '../../hub/src/system/backoff.js';
import type { MonitorKey } from './reconcile-monitor.js';

export interface ReconcileQueueOptions {
  reconcile: (key: MonitorKey) => Promise<'refresh' | undefined>;
  log: Logger;
  /** Reconciles running at once (controller-runtime's MaxConcurrentReconciles). */
  workers?: number;
  /** When a pass resolves 'refresh', it runs again after this long (jittered); never when absent. */
  refreshMs?: number;
  initialRetryMs?: number;
  maxRetryMs?: number;
  /** A promise to wait for before retrying after this error; a timed backoff when undefined. */
  waitBeforeRetry?: (error: unknown) => Promise<void> | undefined;
  /**
   * Keys with a change to deliver: they run before any key that only refreshes, and when released by
   * `waitBeforeRetry` at once (the others wait for their refresh). Absent: one lane, and every released key is urgent.
   */
  isUrgent?: (key: MonitorKey) => boolean;
  random?: () => number;
}

type Lane = 'urgent' | 'routine';

interface Entry {
  key: MonitorKey;
  state: 'queued' | 'running' | 'waiting';
  /** The lane it is queued in (meaningful while queued). */
  lane: Lane;
  /** Another pass was asked for while one was running. */
  dirty: boolean;
  failures: number;
  timer?: NodeJS.Timeout;
}

export function createReconcileQueue(options: ReconcileQueueOptions) {
  const workers = options.workers ?? 4;
  const initialRetryMs = options.initialRetryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const random = options.random ?? Math.random;
  const entries = new Map<string, Entry>();
  // An id may stand in a lane it has since left (moved to urgent, or run): pump skips it (lazy removal).
  const lanes: Record<Lane, string[]> = { urgent: [], routine: [] };
  let queuedCount = 0;
  const laneOf = (key: MonitorKey): Lane => (options.isUrgent?.(key) === true ? 'urgent' : 'routine');
  const queueIn = (id: string, entry: Entry, lane: Lane) => {
    if (entry.state !== 'queued') queuedCount += 1;
    entry.state = 'queued';
    entry.lane = lane;
    lanes[lane].push(id);
  };
  const running = new Set<Promise<void>>();
  let stopped = false;

  function enqueue(key: MonitorKey, urgent = false, pumpLater = false): void {
    if (stopped) return;
    const id = `${key.namespace}/${key.name}`;
    const lane = urgent ? 'urgent' : laneOf(key);
    let entry = entries.get(id);
    if (!entry) {
      entry = { key, state: 'waiting', lane, dirty: false, failures: 0 };
      entries.set(id, entry);
      queueIn(id, entry, lane);
    } else if (entry.state === 'running') {
      entry.dirty = true;
    } else if (entry.state === 'waiting') {
      clearTimeout(entry.timer);
      queueIn(id, entry, lane);
    } else if (lane === 'urgent' && entry.lane === 'routine') {
      // Queued for a refresh when a change arrived: it moves ahead.
      queueIn(id, entry, lane);
    }
    // Keys released together (the hub is back) are all queued before any starts, so urgent ones go first.
    if (pumpLater) setImmediate(pump);
    else pump();
  }

  function pump(): void {
    while (!stopped && running.size < workers) {
      const lane: Lane | undefined =
        lanes.urgent.length > 0 ? 'urgent' : lanes.routine.length > 0 ? 'routine' : undefined;
      if (lane === undefined) return;
      const id = lanes[lane].shift() as string;
      const entry = entries.get(id);
      if (!entry || entry.state !== 'queued' || entry.lane !== lane) continue;
      queuedCount -= 1;
      const pass = runPass(id, entry).finally(() => {
        running.delete(pass);
        pump();
      });
      running.add(pass);
    }
  }

  function later(id: string, entry: Entry, delayMs: number): void {
    clearTimeout(entry.timer);
    entry.state = 'waiting';
    entry.timer = setTimeout(() => enqueue(entry.key), delayMs);
  }

  /**
   * A key whose wait ended (the hub is back): one with a change to deliver runs at once, ahead of the others; one
   * that only wanted its periodic refresh is spread over the next refresh period, so a hub just back from an
   * upgrade is not hit by the whole fleet at once and the changes are not queued behind it.
   */
  function release(id: string, entry: Entry): void {
    if (stopped || entry.state !== 'waiting') return;
    if (options.isUrgent?.(entry.key) ?? true) enqueue(entry.key, true, true);
    else if (options.refreshMs === undefined) enqueue(entry.key, false, true);
    else later(id, entry, options.refreshMs * random());
  }

  async function runPass(id: string, entry: Entry): Promise<void> {
    entry.state = 'running';
    let outcome: 'refresh' | undefined;
    let failure: { error: unknown } | undefined;
    try {
      outcome = await options.reconcile(entry.key);
      entry.failures = 0;
    } catch (error) {
      failure = { error };
    }
    if (stopped) return;
    if (entry.dirty) {
      entry.dirty = false;
      queueIn(id, entry, laneOf(entry.key));
    } else if (failure) {
      const wait = options.waitBeforeRetry?.(failure.error);
      if (wait) {
        entry.state = 'waiting';
        void wait.then(() => release(id, entry));
        return;
      }
      const delay = backoffDelayMs(
        { initialMs: initialRetryMs, maxMs: maxRetryMs, jitter: { spread: 0.2 }, random },
        entry.failures,
      );
      entry.failures += 1;
      options.log.warn(
        { err: failure.error, monitor: id, retryInMs: Math.round(delay) },
        'reconcile failed; will retry',
      );
      later(id, entry, delay);
    } else if (outcome === 'refresh' && options.refreshMs !== undefined) {
      later(id, entry, options.refreshMs * (1 + 0.2 * random()));
    } else {
      entries.delete(id);
    }
  }

  return {
    enqueue: (key: MonitorKey) => enqueue(key),
    /** Keys waiting for a worker (controller-runtime's workqueue depth). */
    depth: () => queuedCount,
    /** Whether the key is known: queued, running or waiting for a refresh or retry. */
    has: (key: MonitorKey) => entries.has(`${key.namespace}/${key.name}`),
    /** Stops retries and waits for the passes in flight. */
    async stop(): Promise<void> {
      stopped = true;
      for (const entry of entries.values()) clearTimeout(entry.timer);
      await Promise.allSettled([...running]);
    },
  };
}
export type ReconcileQueue = ReturnType<typeof createReconcileQueue>;
