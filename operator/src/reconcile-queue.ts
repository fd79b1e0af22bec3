// A work queue keyed by namespace/name (as in pepr and client-go): at most one reconcile in flight per object,
// events arriving meanwhile fold into one more pass, and a failed pass is retried with exponential backoff. A pass
// that resolves 'refresh' asks to be run again after `refreshMs` (client-go's RequeueAfter): that refreshes health.
import type { Logger } from 'pino';
import type { MonitorKey } from './reconcile-monitor.js';

export interface ReconcileQueueOptions {
  reconcile: (key: MonitorKey) => Promise<'refresh' | undefined>;
  log: Logger;
  /** When a pass resolves 'refresh', it runs again after this long; never when absent. */
  refreshMs?: number;
  initialRetryMs?: number;
  maxRetryMs?: number;
}

interface Entry {
  key: MonitorKey;
  running: boolean;
  /** Another pass was asked for while one was running. */
  again: boolean;
  retryMs: number;
  retryTimer?: NodeJS.Timeout;
}

export function createReconcileQueue(options: ReconcileQueueOptions) {
  const initialRetryMs = options.initialRetryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 60_000;
  const entries = new Map<string, Entry>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  function enqueue(key: MonitorKey): void {
    if (stopped) return;
    const id = `${key.namespace}/${key.name}`;
    const entry = entries.get(id) ?? { key, running: false, again: false, retryMs: initialRetryMs };
    entries.set(id, entry);
    if (entry.running) {
      entry.again = true;
      return;
    }
    clearTimeout(entry.retryTimer);
    const pass = runPass(id, entry).finally(() => running.delete(pass));
    running.add(pass);
  }

  async function runPass(id: string, entry: Entry): Promise<void> {
    entry.running = true;
    let failed = false;
    let refresh = false;
    try {
      refresh = (await options.reconcile(entry.key)) === 'refresh';
      entry.retryMs = initialRetryMs;
    } catch (error) {
      failed = true;
      options.log.warn({ err: error, monitor: id, retryInMs: entry.retryMs }, 'reconcile failed; will retry');
    }
    entry.running = false;
    if (stopped) return;
    if (entry.again) {
      entry.again = false;
      enqueue(entry.key);
    } else if (failed) {
      const delay = entry.retryMs;
      entry.retryMs = Math.min(entry.retryMs * 2, maxRetryMs);
      entry.retryTimer = setTimeout(() => enqueue(entry.key), delay);
    } else if (refresh && options.refreshMs !== undefined) {
      entry.retryTimer = setTimeout(() => enqueue(entry.key), options.refreshMs);
    } else {
      entries.delete(id);
    }
  }

  return {
    enqueue,
    /** Stops retries and waits for the passes in flight. */
    async stop(): Promise<void> {
      stopped = true;
      for (const entry of entries.values()) clearTimeout(entry.retryTimer);
      await Promise.allSettled([...running]);
    },
  };
}
export type ReconcileQueue = ReturnType<typeof createReconcileQueue>;
