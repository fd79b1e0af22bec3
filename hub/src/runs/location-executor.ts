import type { RunRow } from './run.repository.js';
import type { HandedOverResult } from './run-queue.js';

/** A scheduled slot as a worker takes it: the job that carries it, and which monitor, location and slot. */
export interface ScheduledSlot {
  jobId: string;
  organizationId: string;
  monitorId: string;
  location: string;
  slot: string;
  /** The monitor version the slot's job carries, if any (RunJobData). */
  version?: string | undefined;
  /** When the next slot of its schedule is due: a slot without a check place by then is shed (SlotSupersededError). */
  supersededAtMs?: number | undefined;
}

/**
 * How a location carries out a run (DESIGN.md "Locations"): `worker` executes it in the consuming process;
 * `job` starts a Kubernetes Job whose `meerkat runner --run <id>` executes it. A manual run goes
 * pending -> running -> completed/failed exactly once, and a second delivery of the same run does nothing.
 */
export interface LocationExecutor {
  execute(run: RunRow, signal: AbortSignal): Promise<void>;
  /**
   * Takes over a `running` run whose job came again because the consumer holding it died, instead of leaving it
   * to the reaper. Absent: such a run is left to the reaper (a runner Job reports on its own).
   */
  resume?(run: RunRow, signal: AbortSignal): Promise<void>;
  /**
   * Carries out a scheduled slot and records its finished run in one write (docs/adr/0015-run-write-path.md).
   * Absent: the slot gets a pending row first, then `execute`.
   */
  executeScheduled?(slot: ScheduledSlot, signal: AbortSignal): Promise<void>;
  /**
   * Writes results its `executeScheduled` handed over when the database was away (ResultAwaitingWriteError);
   * throws while it still is.
   */
  writeHandedOver?(results: readonly HandedOverResult[]): Promise<void>;
}
