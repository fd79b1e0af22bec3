// The counts every fault test prints: which scheduled slots were due in a window, against the run rows
// recorded for them, and against what the counting target saw.

/** A (monitor, location) schedule as the scheduler gives it to BullMQ: slots are every k * everyMs + offsetMs. */
export interface Schedule {
  monitorId: string;
  everyMs: number;
  /** scheduleOffsetMs of hub/src/scheduling/schedules.ts: 0 <= offsetMs < everyMs. */
  offsetMs: number;
}

/** A run row, as read from the `runs` table. */
export interface RecordedRun {
  monitorId: string;
  /** `runs.schedule_slot`: the slot's millis, as text; null for manual runs. */
  scheduleSlot: string | null;
  status: 'pending' | 'running' | 'completed' | 'failed';
  startedAt: Date | null;
  completedAt: Date | null;
}

/** A gap row of the slot ledger: a slot that got no run, and why. */
export interface RecordedGap {
  monitorId: string;
  scheduleSlot: string;
  reason: string;
}

/** A request the counting target received; `answeredAt` is set when it sent a whole 200 response. */
export interface TargetHit {
  monitorId: string;
  arrivedAt: number;
  answeredAt?: number | undefined;
}

export interface SlotCounts {
  /** Slots due in the window, over all schedules. */
  expected: number;
  /** Expected slots that have at least one run row. */
  recorded: number;
  /** Expected slots without a run row (lost). */
  missing: number;
  /** Extra rows for a slot that has one already. */
  duplicated: number;
  /** Runs of the window still `pending` or `running`. */
  stuck: number;
  /** Runs of the window that ended `failed` although the target answered 200 while they ran. */
  falseFailures: number;
  /** A few of the missing slots, `monitor@iso time`, for the failure message. */
  missingExamples: string[];
}

/** The slots of `schedule` due in [fromMs, toMs). */
export function expectedSlots(schedule: Schedule, fromMs: number, toMs: number): number[] {
  const { everyMs, offsetMs } = schedule;
  const slots: number[] = [];
  let slot = Math.ceil((fromMs - offsetMs) / everyMs) * everyMs + offsetMs;
  for (; slot < toMs; slot += everyMs) slots.push(slot);
  return slots;
}

/**
 * A failed run is a false failure when the target answered its monitor with a whole 200 response between the
 * run's start and end: the monitored service was fine, the run said otherwise. (Each test's monitors have one
 * run in flight at a time, so a hit in that span is the run's own request.) A run that never started sent no
 * request, so no answer was its own.
 */
export function isFalseFailure(run: RecordedRun, hits: readonly TargetHit[], slack = 50): boolean {
  if (run.status !== 'failed' || run.startedAt === null) return false;
  const from = run.startedAt.getTime() - slack;
  const to = (run.completedAt?.getTime() ?? Number.POSITIVE_INFINITY) + slack;
  return hits.some(
    (hit) =>
      hit.monitorId === run.monitorId &&
      hit.answeredAt !== undefined &&
      hit.arrivedAt >= from &&
      hit.answeredAt <= to,
  );
}

/** Rows beyond the first for one (monitor, slot): a slot run twice. Manual runs (no slot) never count. */
export function duplicatedSlots(runs: readonly RecordedRun[]): number {
  const rowsPerSlot = new Map<string, number>();
  for (const run of runs) {
    if (run.scheduleSlot === null) continue;
    const key = `${run.monitorId}@${run.scheduleSlot}`;
    rowsPerSlot.set(key, (rowsPerSlot.get(key) ?? 0) + 1);
  }
  return [...rowsPerSlot.values()].reduce((sum, rows) => sum + rows - 1, 0);
}

/** Counts the window [fromMs, toMs): the scheduled runs of the window are those whose slot lies in it. */
export function countSlots(input: {
  schedules: readonly Schedule[];
  fromMs: number;
  toMs: number;
  runs: readonly RecordedRun[];
  hits: readonly TargetHit[];
}): SlotCounts {
  const { schedules, fromMs, toMs, runs, hits } = input;
  const inWindow = runs.filter((run) => {
    const slot = Number(run.scheduleSlot);
    return run.scheduleSlot !== null && slot >= fromMs && slot < toMs;
  });
  const recordedSlots = new Set(inWindow.map((run) => `${run.monitorId}@${run.scheduleSlot}`));
  let expected = 0;
  let recorded = 0;
  const missingExamples: string[] = [];
  for (const schedule of schedules) {
    for (const slot of expectedSlots(schedule, fromMs, toMs)) {
      expected += 1;
      if (recordedSlots.has(`${schedule.monitorId}@${slot}`)) recorded += 1;
      else if (missingExamples.length < 5)
        missingExamples.push(`${schedule.monitorId}@${new Date(slot).toISOString()}`);
    }
  }
  return {
    expected,
    recorded,
    missing: expected - recorded,
    duplicated: duplicatedSlots(inWindow),
    stuck: inWindow.filter((run) => run.status === 'pending' || run.status === 'running').length,
    falseFailures: inWindow.filter((run) => isFalseFailure(run, hits)).length,
    missingExamples,
  };
}

/** One line for the test output, e.g. `[faults] postgres outage: expected 300, recorded 300, ...`. */
export function formatCounts(label: string, counts: Omit<SlotCounts, 'missingExamples'>): string {
  const { expected, recorded, duplicated, stuck, falseFailures } = counts;
  return (
    `[faults] ${label}: expected ${expected}, recorded ${recorded}, duplicated ${duplicated}, ` +
    `stuck ${stuck}, false failures ${falseFailures}`
  );
}

/**
 * Requests the target received that no recorded run accounts for: a check made twice. Each run sends one request
 * while it runs (the tests' monitors have one HTTP step), so requests are matched to runs of their monitor whose
 * span [startedAt, completedAt] holds them, one each (runs of slots checked late after an outage overlap: each
 * request goes to the run that ends first among those still without one). A request left over was made by a
 * check whose result was not kept. Exact where a slot-of-arrival guess is not: a check retried late lands in the
 * next slot's interval. Only requests that arrived in [fromMs, toMs) count; a few examples, `monitor at iso time`.
 */
export function requestsBeyondRuns(
  runs: readonly RecordedRun[],
  hits: readonly TargetHit[],
  fromMs: number,
  toMs: number,
  slack = 50,
): { count: number; examples: string[] } {
  const spansOf = new Map<string, Array<{ from: number; to: number; taken: boolean }>>();
  for (const run of runs) {
    if (run.startedAt === null) continue;
    const spans = spansOf.get(run.monitorId) ?? [];
    const to = run.completedAt?.getTime() ?? Number.POSITIVE_INFINITY;
    spans.push({ from: run.startedAt.getTime() - slack, to: to + slack, taken: false });
    spansOf.set(run.monitorId, spans);
  }
  for (const spans of spansOf.values()) spans.sort((a, b) => a.to - b.to);
  const beyond: TargetHit[] = [];
  for (const hit of [...hits].sort((a, b) => a.arrivedAt - b.arrivedAt)) {
    const span = spansOf
      .get(hit.monitorId)
      ?.find((s) => !s.taken && s.from <= hit.arrivedAt && hit.arrivedAt <= s.to);
    if (span !== undefined) span.taken = true;
    else if (hit.arrivedAt >= fromMs && hit.arrivedAt < toMs) beyond.push(hit);
  }
  return {
    count: beyond.length,
    examples: beyond.slice(0, 5).map((hit) => `${hit.monitorId} at ${new Date(hit.arrivedAt).toISOString()}`),
  };
}

/** The slot ledger of a window: how each due slot ended. */
export interface LedgerCounts {
  expected: number;
  /** Slots with a run row. */
  ran: number;
  /** Slots with a gap row, by reason. */
  gaps: Record<string, number>;
  /** Slots with both a run row and a gap: the ledger says two things of one slot. */
  both: number;
  /** Slots with neither: what the auditor would find `lost`, no process having said why. */
  unreported: Array<{ monitorId: string; slotMs: number }>;
}

/** How each slot due in [fromMs, toMs) ended: a run, a gap with a reason, both (a defect) or neither. */
export function ledgerOf(input: {
  schedules: readonly Schedule[];
  fromMs: number;
  toMs: number;
  runs: readonly RecordedRun[];
  gaps: readonly RecordedGap[];
}): LedgerCounts {
  const ran = new Set(input.runs.map((run) => `${run.monitorId}@${run.scheduleSlot}`));
  const gapOf = new Map(input.gaps.map((gap) => [`${gap.monitorId}@${gap.scheduleSlot}`, gap.reason]));
  const counts: LedgerCounts = { expected: 0, ran: 0, gaps: {}, both: 0, unreported: [] };
  for (const schedule of input.schedules)
    for (const slotMs of expectedSlots(schedule, input.fromMs, input.toMs)) {
      const key = `${schedule.monitorId}@${slotMs}`;
      const reason = gapOf.get(key);
      counts.expected += 1;
      if (ran.has(key)) counts.ran += 1;
      if (reason !== undefined) counts.gaps[reason] = (counts.gaps[reason] ?? 0) + 1;
      if (ran.has(key) && reason !== undefined) counts.both += 1;
      if (!ran.has(key) && reason === undefined)
        counts.unreported.push({ monitorId: schedule.monitorId, slotMs });
    }
  return counts;
}
