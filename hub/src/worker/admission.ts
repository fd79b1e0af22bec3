import type { HoldLane, RunAdmission } from '../runs/run-queue.js';
import { createPlaces, type Places } from '../system/places.js';

/** The share of WORKER_MAX_HELD_SLOTS only the first lane may hold. */
const FIRST_LANE_RESERVE = 0.1;

export interface AdmissionLimits {
  /** WORKER_CONCURRENCY: checks under way at once, across every location the worker serves. */
  checks: number;
  /**
   * WORKER_MAX_HELD_SLOTS: the slots and runs the worker holds at once, whatever they wait for (their time, a
   * check place, their write). Its memory bound under overload (docs/adr/0040-overload-is-shed.md).
   */
  heldSlots: number;
}

/** What the admission counts now: the state of meerkat_worker_admission. */
export interface AdmissionState {
  /** Slots and runs held: taken from the queue and not finished. */
  held: number;
  /** Checks under way (at most `checks`). */
  checking: number;
  /** Held slots waiting for a check place, served by turns across organizations. */
  waitingForCheck: number;
  /** Checked results waiting for their batch's write (the rest of `held` waits for its time). */
  awaitingWrite: number;
}

/**
 * The one place a worker decides what it takes on (docs/adr/0044-one-door-per-concern.md): how many slots it
 * holds and how many it checks at once, with the counters a metric shows. The run queue asks it before it opens a
 * job (`tryHold`) and tells it when a slot leaves (`release`); the executor checks through `checks` and writes
 * through `awaitWrite`. At the held limit a new job makes room by shedding the oldest slots waiting for a check
 * place (the largest organization's first); when none can go, the queue hands the job back and takes no more
 * until `hasRoom` (half the limit): a saturated worker does not hoard a backlog. Jobs of later lanes stop a tenth
 * short of the limit, so that a worker full of them still takes every organization's first slots at once.
 */
export function createAdmission(limits: AdmissionLimits): Admission {
  const places = createPlaces(limits.checks);
  const limitOf = (lane: HoldLane) =>
    lane === 'first'
      ? limits.heldSlots
      : limits.heldSlots - Math.floor(limits.heldSlots * FIRST_LANE_RESERVE);
  let held = 0;
  let awaitingWrite = 0;

  const checks: Pick<Places, 'run' | 'shed'> = {
    run: (task, share, sheddable) => places.run(task, share, sheddable),
    shed: (count, error) => places.shed(count, error),
  };

  return {
    limits,
    checks,

    /**
     * Holds `count` slots (one job's), shedding waiting checks with `shedError()` to stay within the lane's limit.
     * A job larger than the limit alone is held by a worker holding nothing. False: hand the job back.
     */
    tryHold(count: number, shedError: () => Error, lane: HoldLane): boolean {
      const over = held + count - limitOf(lane);
      // Sheds only when that makes room: a slot shed for a job handed back anyway would be lost for nothing.
      if (held > 0 && over > 0 && (places.counts().sheddable < over || places.shed(over, shedError) < over))
        return false;
      held += count;
      return true;
    },

    /** `count` held slots have left (checked and written, shed, dropped, or handed to another job). */
    release(count: number): void {
      held -= count;
    },

    /**
     * Whether a worker that handed jobs of `lane` back may take them again: later lanes once it holds half its limit
     * or less, the first lane once the later lanes' limit leaves it its reserve again.
     */
    hasRoom(lane: HoldLane): boolean {
      return held <= (lane === 'first' ? limitOf('later') : limits.heldSlots / 2);
    },

    /** Counts a checked result among those waiting for their write while `write` runs. */
    awaitWrite: async <T>(write: () => Promise<T>): Promise<T> => {
      awaitingWrite += 1;
      try {
        return await write();
      } finally {
        awaitingWrite -= 1;
      }
    },

    state(): AdmissionState {
      const { running, waiting } = places.counts();
      return { held, checking: running, waitingForCheck: waiting, awaitingWrite };
    },
  };
}

export interface Admission extends RunAdmission {
  limits: AdmissionLimits;
  /** The check places of the worker's executors: WORKER_CONCURRENCY, by turns across organizations. */
  checks: Pick<Places, 'run' | 'shed'>;
  awaitWrite: <T>(write: () => Promise<T>) => Promise<T>;
  state(): AdmissionState;
}
