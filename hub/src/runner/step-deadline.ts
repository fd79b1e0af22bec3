import { RequestTimeoutError } from './step-errors.js';

export interface StepDeadline {
  /** Aborted at the step's timeout (a RequestTimeoutError naming the phase) or at the run's end. */
  signal: AbortSignal;
  /** What the step is doing now, for the timeout's message: `while connecting`, `waiting for the answer`. */
  phase: string;
  release(): void;
}

/** The limit of one TCP, DNS or gRPC step: its `timeout_ms`, within the run's own end. */
export function stepDeadline(timeoutMs: number, runSignal: AbortSignal): StepDeadline {
  const controller = new AbortController();
  const deadline: StepDeadline = {
    signal: controller.signal,
    phase: 'while connecting',
    release: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAbort);
    },
  };
  const timer = setTimeout(
    () => controller.abort(new RequestTimeoutError(timeoutMs, deadline.phase)),
    timeoutMs,
  );
  const onRunAbort = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) onRunAbort();
  else runSignal.addEventListener('abort', onRunAbort, { once: true });
  return deadline;
}

/** Why `signal` aborted, as the Error its aborter gave (a timeout's DOMException is one), else an Error saying it. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as it aborts (a store read cannot be). */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
