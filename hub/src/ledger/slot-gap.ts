// What the slot ledger records (docs/adr/0025-slot-ledger.md): every due slot of a monitor at a location ends in
// one run row or one gap with one of these reasons.

/** Why a due slot has no run, and who says so. */
export const GAP_REASONS = [
  /** The workers of the location were saturated: the tick queued nothing for the slot (the worker). */
  'skipped_saturated',
  /** No tick ran in time (Redis away, every worker down): only the latest missed slot ran (the worker). */
  'skipped_late',
  /** The result could not be written within RUN_RECORD_RETRY_SECONDS (the worker). */
  'dropped_dependency',
  /** The run's job failed for good (the worker). */
  'dropped_error',
  /** The process stopped before the slot's result was handed on (the worker). */
  'dropped_shutdown',
  /**
   * The worker holding the slot died after its time: its check may have reached the target, so it is not
   * checked again (the worker that got the slot's batch back).
   */
  'skipped_worker_lost',
  /** Overload shedding: a newer slot of the monitor ran instead (the worker). */
  'shed',
  /** Nobody reported it: the scheduler's auditor found neither a run nor a gap once the slot settled. */
  'lost',
] as const;

export type GapReason = (typeof GAP_REASONS)[number];

/** One due slot without a run. `slotMs` is the slot's due time in epoch milliseconds (a run's `schedule_slot`). */
export interface SlotGap {
  organizationId: string;
  monitorId: string;
  location: string;
  slotMs: number;
  reason: GapReason;
}
