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
 * Slots of the window [fromMs, toMs) whose monitor's target was asked more than once for them: each request is
 * the check of the latest slot at or before its arrival (a check never starts before its slot and ends within
 * the interval), so two requests of one monitor between two of its slots are one slot checked twice. A few
 * examples, `monitor@iso time at +ms, +ms` (each arrival after its slot), for the failure message.
 */
export function slotsRequestedTwice(
  schedules: readonly Schedule[],
  hits: readonly TargetHit[],
  fromMs: number,
  toMs: number,
): { count: number; examples: string[] } {
  const byMonitor = new Map(schedules.map((s) => [s.monitorId, s]));
  const requests = new Map<string, number[]>();
  for (const hit of hits) {
    const schedule = byMonitor.get(hit.monitorId);
    if (schedule === undefined) continue;
    const { everyMs, offsetMs } = schedule;
    const slot = Math.floor((hit.arrivedAt - offsetMs) / everyMs) * everyMs + offsetMs;
    if (slot < fromMs || slot >= toMs) continue;
    const key = `${hit.monitorId}@${new Date(slot).toISOString()}`;
    requests.set(key, [...(requests.get(key) ?? []), hit.arrivedAt - slot]);
  }
  const twice = [...requests].filter(([, arrivals]) => arrivals.length > 1);
  return {
    count: twice.length,
    examples: twice.slice(0, 5).map(([key, arrivals]) => `${key} at +${arrivals.join(', +')} ms`),
  };
}
