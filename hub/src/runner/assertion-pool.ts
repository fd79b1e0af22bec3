import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AssertionBudgetError } from './assertion-budget-error.js';
import type { AssertionTask } from './assertion-thread.js';
import type { BodyCheck, BodyVerdict } from './body-check-evaluation.js';

/**
 * Long-lived worker threads that evaluate JSONPath body assertions, so that no expression, however costly, runs
 * on the event loop of the API, the scheduler or the worker. A task that is still running when its budget ends
 * has its thread terminated (the only way to stop a running JavaScript function) and replaced on demand.
 */
export interface AssertionPool {
  /**
   * Evaluates `checks` against one response body on a pool thread. Rejects with AssertionBudgetError when the
   * thread works on it for longer than `budgetMs`, and with the signal's reason when `signal` aborts first.
   */
  evaluate(
    text: string,
    checks: BodyCheck[],
    budgetMs: number,
    signal: AbortSignal,
  ): Promise<{ verdicts: BodyVerdict[]; elapsedMs: number }>;
  /** Terminates the threads; queued tasks are rejected. */
  close(): Promise<void>;
}

interface Job {
  task: AssertionTask;
  budgetMs: number;
  started: number;
  settled: boolean;
  settle(outcome: { verdicts: BodyVerdict[]; elapsedMs: number } | Error): void;
}

interface PoolThread {
  worker: Worker;
  ready: boolean;
  /** Sent and not answered, in the order the thread takes them; the first is the one it works on. */
  sent: Job[];
  budgetTimer?: NodeJS.Timeout;
  holdsProcess: boolean;
}

type ThreadMessage = { ready: true } | { id: number; verdicts: BodyVerdict[] };

// A thread's heap holds a parsed body and what a query builds from it; past this it is stopped, not the process.
const THREAD_HEAP_MB = 256;
// A thread gets a few tasks ahead, so that under load it goes from one to the next without sleeping; tasks go
// to the first thread with room, and another thread starts only when those are full or stuck. Waking threads is
// what a check costs most (about half of it with the tasks spread over two threads on two cores).
const TASKS_AHEAD = 4;
// A thread whose current task has run this long takes no more: what would wait behind it goes elsewhere.
const STUCK_MS = 20;
const asError = (reason: unknown) => (reason instanceof Error ? reason : new Error(String(reason)));
const defaultThreadCount = () => Math.min(4, Math.max(2, availableParallelism()));

/** A built tree runs the compiled thread; a checkout registers tsx in the thread first, as bin/meerkat.js does. */
function startThread(): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } };
  if (import.meta.url.endsWith('.js'))
    return new Worker(new URL('./assertion-thread.js', import.meta.url), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./assertion-thread.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

export function createAssertionPool(options: { threads?: number } = {}): AssertionPool {
  const maxThreads = options.threads ?? defaultThreadCount();
  const threads = new Set<PoolThread>();
  const queue: Job[] = [];
  let nextId = 0;
  let closed = false;

  /** Starts the budget of the task the thread now works on: the first one it has not answered. */
  function startHead(thread: PoolThread): void {
    clearTimeout(thread.budgetTimer);
    const head = thread.sent[0];
    if (head === undefined) return;
    head.started = performance.now();
    thread.budgetTimer = setTimeout(() => {
      stop(thread);
      head.settle(new AssertionBudgetError(head.budgetMs));
    }, head.budgetMs);
  }

  /** Takes the thread out of the pool; the tasks sent behind its current one go back to the front of the queue. */
  function stop(thread: PoolThread): Job | undefined {
    threads.delete(thread);
    clearTimeout(thread.budgetTimer);
    void thread.worker.terminate();
    const [head, ...behind] = thread.sent;
    thread.sent = [];
    queue.unshift(...behind.filter((job) => !job.settled));
    dispatch();
    return head;
  }

  function retire(thread: PoolThread, error: Error): void {
    if (!threads.has(thread)) return;
    // A thread that dies before it is ready would die again: fail what waits instead of respawning forever.
    if (!thread.ready)
      for (const job of queue.splice(0)) job.settle(new Error(`no assertion thread: ${error.message}`));
    stop(thread)?.settle(new Error(`the JSONPath evaluation thread failed: ${error.message}`));
  }

  function spawn(): void {
    const thread: PoolThread = { worker: startThread(), ready: false, sent: [], holdsProcess: true };
    threads.add(thread);
    thread.worker.on('message', (message: ThreadMessage) => {
      if ('ready' in message) thread.ready = true;
      else if (thread.sent[0]?.task.id === message.id) {
        const job = thread.sent.shift();
        job?.settle({ verdicts: message.verdicts, elapsedMs: performance.now() - job.started });
        startHead(thread);
      }
      dispatch();
    });
    thread.worker.on('error', (error) => retire(thread, error));
    thread.worker.on('exit', (code) => retire(thread, new Error(`it exited with code ${code}`)));
  }

  function threadWithRoom(): PoolThread | undefined {
    const now = performance.now();
    for (const thread of threads) {
      const head = thread.sent[0];
      if (
        thread.ready &&
        thread.sent.length < TASKS_AHEAD &&
        (head === undefined || now - head.started < STUCK_MS)
      )
        return thread;
    }
    return undefined;
  }

  function dispatch(): void {
    for (let thread = threadWithRoom(); thread !== undefined && queue.length > 0; thread = threadWithRoom()) {
      const job = queue.shift();
      if (job === undefined || job.settled) continue;
      thread.sent.push(job);
      thread.worker.postMessage(job.task);
      if (thread.sent.length === 1) startHead(thread);
    }
    let starting = 0;
    for (const thread of threads) {
      if (!thread.ready) starting += 1;
      // A thread keeps the process alive while it starts or works for a run, never while it waits for one.
      const holdsProcess = !thread.ready || thread.sent.length > 0;
      if (holdsProcess !== thread.holdsProcess) {
        if (holdsProcess) thread.worker.ref();
        else thread.worker.unref();
        thread.holdsProcess = holdsProcess;
      }
    }
    if (queue.length > starting && threads.size < maxThreads && !closed) spawn();
  }

  return {
    evaluate(text, checks, budgetMs, signal) {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new Error('the assertion pool is closed'));
        if (signal.aborted) return reject(asError(signal.reason));
        // A task already sent keeps its thread until it answers or its budget ends; the run stops waiting now.
        const onAbort = () => job.settle(asError(signal.reason));
        const job: Job = {
          task: { id: (nextId += 1), text, checks },
          budgetMs,
          started: 0,
          settled: false,
          settle: (outcome) => {
            if (job.settled) return;
            job.settled = true;
            signal.removeEventListener('abort', onAbort);
            if (outcome instanceof Error) reject(outcome);
            else resolve(outcome);
          },
        };
        signal.addEventListener('abort', onAbort, { once: true });
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      const stopping = [...threads];
      threads.clear();
      for (const thread of stopping) clearTimeout(thread.budgetTimer);
      for (const job of [...queue.splice(0), ...stopping.flatMap((thread) => thread.sent)])
        job.settle(new Error('the assertion pool is closed'));
      await Promise.all(stopping.map((thread) => thread.worker.terminate()));
    },
  };
}
