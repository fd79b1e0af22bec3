// Whether the hub answers, judged across all Monitors rather than per object: an outage starts at the first
// failed call and ends at the first answered one. While it lasts, reconciles that could not reach the hub wait
// here instead of each backing off on its own timer; one probe asks the hub whether it is back (capped backoff),
// and when it is, every waiting reconcile runs at once, so a hub upgrade is over for every Monitor within
// seconds of the hub returning.
import type { Logger } from 'pino';
import { HubRequestError } from '../../hub/src/client/hub-client.js';
import { createBackoff } from '../../hub/src/system/backoff.js';

/** A reconcile could not reach the hub (network error, timeout, 5xx, 429); it is retried when the hub is back. */
export class HubUnreachableError extends Error {
  constructor(cause: unknown) {
    super(`the hub could not be reached: ${describeHubFailure(cause)}`, { cause });
    this.name = new.target.name;
  }
}

/** A definite refusal (4xx other than 408 and 429): asking again unchanged would get the same answer. */
export function isHubRejection(error: unknown): error is HubRequestError {
  return (
    error instanceof HubRequestError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}

/** The hub's own words, with each failing field, so `kubectl describe` shows what to fix. */
export function describeHubFailure(error: unknown): string {
  if (error instanceof HubRequestError) {
    // The hub's message often already names the first failing field; say each one once.
    const fields = error.details
      .map((detail) => `${detail.path}: ${detail.message}`)
      .filter((field, index, all) => !error.message.includes(field) && all.indexOf(field) === index);
    return [`the hub answered ${error.status}: ${error.message}`, ...fields].join('; ');
  }
  if (error instanceof Error && error.name === 'TimeoutError') return 'the hub did not answer in time';
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return `${error instanceof Error ? error.message : String(error)}${cause ? ` (${cause})` : ''}`;
}

export interface HubAvailabilityOptions {
  /** One cheap call that succeeds when the hub answers (`GET /`). */
  probe: () => Promise<unknown>;
  /** How long an outage lasts before Monitors are told (HubReachable=False, one Event each). */
  graceMs: number;
  log: Logger;
  now: () => Date;
  initialProbeMs?: number;
  maxProbeMs?: number;
  /** Called when an outage starts (false) and ends (true). */
  onChange?: (reachable: boolean) => void;
}

export function createHubAvailability(options: HubAvailabilityOptions) {
  const initialProbeMs = options.initialProbeMs ?? 500;
  const maxProbeMs = options.maxProbeMs ?? 2_000;
  let since: Date | undefined;
  let firstError = '';
  let waiters: Array<() => void> = [];
  let probing = false;
  let announced = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  function release(): void {
    const waiting = waiters;
    waiters = [];
    for (const resolve of waiting) resolve();
  }

  async function probeUntilBack(): Promise<void> {
    probing = true;
    const probes = createBackoff({ initialMs: initialProbeMs, maxMs: maxProbeMs });
    while (since && !stopped) {
      const delay = probes.next();
      await new Promise<void>((resolve) => (timer = setTimeout(resolve, delay)));
      if (!since || stopped) break;
      try {
        await options.probe();
        availability.reportAnswer();
      } catch {
        if (!announced && availability.outagePastGrace()) {
          // The waiting reconciles run once more, to tell their Monitors (HubReachable=False), and wait again.
          announced = true;
          release();
        }
      }
    }
    probing = false;
  }

  const availability = {
    /** Any answer from the hub, a refusal included: the hub is there. */
    reportAnswer(): void {
      if (!since) return;
      options.log.info({ outageMs: options.now().getTime() - since.getTime() }, 'the hub answers again');
      since = undefined;
      announced = false;
      options.onChange?.(true);
      release();
    },
    reportUnreachable(error: unknown): void {
      if (since) return;
      since = options.now();
      firstError = describeHubFailure(error);
      options.log.warn(
        { error: firstError },
        'the hub cannot be reached; Monitors keep their status meanwhile',
      );
      options.onChange?.(false);
    },
    /** Set while the hub has not answered for the grace period: when the outage started and its first error. */
    outagePastGrace(): { since: Date; error: string } | undefined {
      if (!since || options.now().getTime() - since.getTime() < options.graceMs) return undefined;
      return { since, error: firstError };
    },
    isReachable: () => since === undefined,
    /** Resolves once the hub answers again (at once when it is not known to be down). */
    whenBack(): Promise<void> {
      if (!since || stopped) return Promise.resolve();
      const back = new Promise<void>((resolve) => waiters.push(resolve));
      if (!probing) void probeUntilBack();
      return back;
    },
    stop(): void {
      stopped = true;
      clearTimeout(timer);
      release();
    },
  };
  return availability;
}
export type HubAvailability = ReturnType<typeof createHubAvailability>;
