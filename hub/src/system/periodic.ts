/** A loop started by startPeriodic. */
export interface Periodic {
  /** Stops the timer and waits for the pass in flight; a pass not yet started no longer runs. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` until stopped, one pass at a time: a tick that comes while a pass is running
 * queues the next pass right after it, and further ticks meanwhile add nothing, so a slow pass never overlaps
 * the next and no backlog builds up. A failed pass goes to `onError`; the next tick runs as usual. The timer does
 * not keep the process alive.
 */
export function startPeriodic(
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): Periodic {
  let stopped = false;
  let queued = false;
  let latest: Promise<void> = Promise.resolve();
  const pass = async () => {
    queued = false;
    if (stopped) return;
    try {
      await task();
    } catch (error) {
      onError(error);
    }
  };
  const timer = setInterval(() => {
    if (queued) return;
    queued = true;
    latest = latest.then(pass);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await latest;
    },
  };
}
