// Waiting for what another process or a controller brings about: a worker finishing a run, a notifier
// delivering, a Kubernetes controller reconciling.

/** Answers undefined or false while the condition does not hold yet. */
type Probe<T> = () => Promise<T | undefined | false>;

/**
 * Polls `probe` every 100 ms, for up to `timeoutMs` (20 s), until it returns a value other than undefined or
 * false; then returns that value.
 *
 * `eventually(probe)` fails at once when the probe throws. `eventually(what, probe)` names what it waits for,
 * and keeps polling when the probe throws (a Kubernetes read answers 404 until the resource exists); on timeout
 * it names the probe's last error.
 */
export function eventually<T>(probe: Probe<T>, timeoutMs?: number): Promise<T>;
export function eventually<T>(what: string, probe: Probe<T>, timeoutMs?: number): Promise<T>;
export function eventually<T>(
  whatOrProbe: string | Probe<T>,
  probeOrTimeoutMs?: Probe<T> | number,
  timeoutMs?: number,
): Promise<T> {
  return typeof whatOrProbe === 'string'
    ? poll(whatOrProbe, probeOrTimeoutMs as Probe<T>, true, timeoutMs)
    : poll('the condition', whatOrProbe, false, probeOrTimeoutMs as number | undefined);
}

async function poll<T>(what: string, probe: Probe<T>, retryErrors: boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (!retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`${what} did not happen within ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
