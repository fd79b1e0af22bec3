import { describe, expect, it } from 'vitest';
import { percentile, probesAsRuns, runFigures } from '../../bench/compare/window-figures.js';
import type { RecordedRun, Schedule } from '../../test/faults/slot-accounting.js';

const schedule: Schedule = { monitorId: 'm1', everyMs: 20_000, offsetMs: 5_000 };
const run = (slot: number, startedAt: number, status: RecordedRun['status'] = 'completed'): RecordedRun => ({
  monitorId: 'm1',
  scheduleSlot: String(slot),
  status,
  startedAt: new Date(startedAt),
  completedAt: new Date(startedAt + 10),
});

describe('percentile', () => {
  it('answers the nearest-rank value', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is NaN for no values', () => {
    expect(percentile([], 99)).toBeNaN();
  });
});

describe('the runs of a window', () => {
  // Slots in [0, 60 s): 5 s, 25 s and 45 s.
  const window = { schedules: [schedule], fromMs: 0, toMs: 60_000 };

  it('counts each due slot once, with its lateness from the due time to the start', () => {
    const runs = [run(5_000, 5_040), run(25_000, 25_020), run(45_000, 45_100)];
    expect(runFigures({ ...window, runs })).toMatchObject({
      expected: 3,
      done: 3,
      missing: 0,
      duplicated: 0,
      latenessP99Ms: 100,
    });
  });

  it('says so when a slot has no row and when one has two', () => {
    const runs = [run(5_000, 5_010), run(5_000, 5_900), run(45_000, 45_010)];
    expect(runFigures({ ...window, runs })).toMatchObject({
      expected: 3,
      done: 2,
      missing: 1,
      duplicated: 1,
    });
  });

  it('leaves out runs of slots outside the window', () => {
    const runs = [run(65_000, 65_010), run(5_000, 5_010)];
    expect(runFigures({ ...window, runs })).toMatchObject({ done: 1, latenessP99Ms: 10 });
  });

  it('counts runs still going as unfinished, and failed runs as done but failed', () => {
    const runs = [run(5_000, 5_010, 'running'), run(25_000, 25_010, 'failed')];
    expect(runFigures({ ...window, runs })).toMatchObject({ done: 2, unfinished: 1, failed: 1 });
  });
});

describe("Prometheus' probes, counted as Meerkat's runs are", () => {
  const everyMs = 20_000;
  const window = { fromMs: 100_000, toMs: 160_000 };
  const figuresOf = (targets: string[], series: Parameters<typeof probesAsRuns>[1]) =>
    runFigures({ ...probesAsRuns(targets, series, everyMs), ...window });
  const ok = (atMs: number) => ({ atMs, success: true });

  it("puts a target's slots on the grid of its first sample, from before the window", () => {
    const series = [{ target: 'a', samples: [ok(87_000), ok(107_000), ok(127_000), ok(147_000)] }];
    expect(figuresOf(['a'], series)).toMatchObject({ expected: 3, done: 3, missing: 0, duplicated: 0 });
  });

  it('measures how late a scrape started against its slot, and counts a failed probe', () => {
    const series = [
      { target: 'a', samples: [ok(87_000), ok(107_003), { atMs: 127_000, success: false }, ok(147_000)] },
    ];
    expect(figuresOf(['a'], series)).toMatchObject({ done: 3, failed: 1, latenessP99Ms: 3 });
  });

  it('says so when a slot was probed twice', () => {
    const series = [
      { target: 'a', samples: [ok(87_000), ok(107_000), ok(107_400), ok(127_000), ok(147_000)] },
    ];
    expect(figuresOf(['a'], series)).toMatchObject({ expected: 3, done: 3, duplicated: 1 });
  });

  it('counts every slot of a target that was never probed as missing', () => {
    const series = [{ target: 'a', samples: [ok(87_000), ok(107_000), ok(127_000), ok(147_000)] }];
    expect(figuresOf(['a', 'b'], series)).toMatchObject({ expected: 6, done: 3, missing: 3 });
  });
});
