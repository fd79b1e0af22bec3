// The figures of one measured window, computed from what each system recorded: Meerkat's run rows against its
// schedules (exactly once per slot), and Prometheus' probe samples counted the same way.
import { scheduleId, scheduleOffsetMs } from '../../hub/src/scheduling/schedules.js';
import { countSlots, type RecordedRun, type Schedule } from '../../test/faults/slot-accounting.js';

/** The value below which `p` percent of `values` lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** The schedule the scheduler keeps for each monitor in location `default` (hub/src/scheduling/schedules.ts). */
export function schedulesOf(
  organizationId: string,
  monitorIds: readonly string[],
  everyMs: number,
): Schedule[] {
  return monitorIds.map((monitorId) => ({
    monitorId,
    everyMs,
    offsetMs: scheduleOffsetMs(scheduleId(organizationId, monitorId, 'default'), everyMs),
  }));
}

export interface RunFigures {
  expected: number;
  /** Slots of the window with a run row. */
  done: number;
  /** Runs of the window that failed (their check did not pass). */
  failed: number;
  missing: number;
  /** Rows beyond the first for a slot: 0 when every slot ran exactly once. */
  duplicated: number;
  /** Runs of the window still pending or running when read. */
  unfinished: number;
  /** started_at minus the slot's due time, 99th percentile, in ms. */
  latenessP99Ms: number;
}

/** Counts Meerkat's runs of the slots due in [fromMs, toMs) against its schedules. */
export function runFigures(input: {
  schedules: readonly Schedule[];
  runs: readonly RecordedRun[];
  fromMs: number;
  toMs: number;
}): RunFigures {
  const counts = countSlots({ ...input, hits: [] });
  const inWindow = input.runs.filter((run) => {
    const slot = Number(run.scheduleSlot);
    return run.scheduleSlot !== null && slot >= input.fromMs && slot < input.toMs;
  });
  const lateness = inWindow.flatMap((run) =>
    run.startedAt === null ? [] : [run.startedAt.getTime() - Number(run.scheduleSlot)],
  );
  return {
    expected: counts.expected,
    done: counts.recorded,
    failed: inWindow.filter((run) => run.status === 'failed').length,
    missing: counts.missing,
    duplicated: counts.duplicated,
    unfinished: counts.stuck,
    latenessP99Ms: percentile(lateness, 99),
  };
}

/** One Prometheus series of probe results: its target, and its samples' timestamps (ms) and values. */
export interface ProbeSeries {
  target: string;
  samples: ReadonlyArray<{ atMs: number; success: boolean }>;
}

/**
 * Prometheus' probes in the shape of Meerkat's schedules and runs, so both are counted alike: each target is a
 * schedule whose slots lie on its first sample's grid (Prometheus gives a target a fixed offset within the
 * interval and stamps a sample with its scrape's start), each sample a run of the slot nearest to it. A target
 * without any sample keeps offset 0: its slots all count as missing.
 */
export function probesAsRuns(
  targets: readonly string[],
  series: readonly ProbeSeries[],
  everyMs: number,
): { schedules: Schedule[]; runs: RecordedRun[] } {
  const byTarget = new Map(series.map((one) => [one.target, one.samples]));
  const schedules = targets.map((target) => {
    const first = byTarget.get(target)?.[0]?.atMs ?? 0;
    return { monitorId: target, everyMs, offsetMs: ((first % everyMs) + everyMs) % everyMs };
  });
  const runs = schedules.flatMap(({ monitorId, offsetMs }) =>
    (byTarget.get(monitorId) ?? []).map(({ atMs, success }): RecordedRun => {
      const slot = Math.round((atMs - offsetMs) / everyMs) * everyMs + offsetMs;
      return {
        monitorId,
        scheduleSlot: String(slot),
        status: success ? 'completed' : 'failed',
        startedAt: new Date(atMs),
        completedAt: new Date(atMs),
      };
    }),
  );
  return { schedules, runs };
}
