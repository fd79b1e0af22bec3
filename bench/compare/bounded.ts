// Every wait of the side-by-side benchmark has a bound: a step that does not finish in time fails naming itself,
// and a child process that does not stop is killed. A benchmark that hangs measures nothing and holds a shared
// machine; one that leaves processes behind skews everyone's figures after it.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const KILL_WAIT_MS = 5_000;

/** Resolves as `work` does, or rejects after `ms` with a message that names `what`. */
export async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function hasEnded(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** How a child ended (`exit 0`, `SIGKILL`), or `running`. */
export function endOf(child: ChildProcess): string {
  if (child.exitCode !== null) return `exit ${child.exitCode}`;
  return child.signalCode ?? 'running';
}

/**
 * Sends `signal`, gives the child `graceMs` to exit, then SIGKILLs it; answers how it ended. Unlike waiting for
 * 'exit' after a kill, this never waits for an event that has already fired or will never come.
 */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<string> {
  if (hasEnded(child)) return endOf(child);
  const exited = new Promise<true>((resolve) => child.once('exit', () => resolve(true)));
  child.kill(signal);
  if (await Promise.race([exited, sleep(graceMs, false, { ref: false })])) return endOf(child);
  child.kill('SIGKILL');
  if (await Promise.race([exited, sleep(KILL_WAIT_MS, false, { ref: false })]))
    return `${endOf(child)} after ${graceMs / 1000} s without exiting on ${signal}`;
  return `pid ${child.pid} still running ${KILL_WAIT_MS / 1000} s after SIGKILL`;
}

const started = new Set<ChildProcess>();
// The last resort when the benchmark itself dies on an error nobody caught: its children must not outlive it.
process.on('exit', () => {
  for (const child of started) if (!hasEnded(child)) child.kill('SIGKILL');
});

/** Has `child` killed if it still runs when this process exits, however it exits. */
export function killOnExit(child: ChildProcess): void {
  started.add(child);
  child.once('exit', () => started.delete(child));
}
