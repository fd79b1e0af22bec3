import { describe, expect, it } from 'vitest';
import { parseFairShareOptions } from '../../bench/fair-share/fair-share-options.js';
import {
  fairShareVerdict,
  figuresTable,
  organizationFigures,
  settled,
} from '../../bench/fair-share/organization-figures.js';
import type { RecordedGap, RecordedRun, Schedule } from '../../test/faults/slot-accounting.js';

// Slots in [0, 30 s) of a 10 s schedule at offset 2 s: 2 s, 12 s and 22 s.
const schedule: Schedule = { monitorId: 'b-00000', everyMs: 10_000, offsetMs: 2_000 };
const window = { organization: 'org-b', schedules: [schedule], fromMs: 0, toMs: 30_000 };
const run = (slot: number, lateMs: number, status: RecordedRun['status'] = 'completed'): RecordedRun => ({
  monitorId: 'b-00000',
  scheduleSlot: String(slot),
  status,
  startedAt: new Date(slot + lateMs),
  completedAt: status === 'completed' ? new Date(slot + lateMs + 5) : null,
});
const gap = (slot: number, reason: string): RecordedGap => ({
  monitorId: 'b-00000',
  scheduleSlot: String(slot),
  reason,
});

describe('the command line of bench:fair-share', () => {
  it("defaults to the issue's scale: 20,000 monitors of A and 20 of B every 10 s", () => {
    expect(parseFairShareOptions([])).toEqual({
      aMonitors: 20_000,
      bMonitors: 20,
      every: 10,
      warmup: 60,
      window: 120,
      settle: 90,
      control: false,
    });
  });

  it('runs B alone for the control, and passes the worker concurrency when given', () => {
    const options = parseFairShareOptions(['--control', '--worker-concurrency', '50']);
    expect(options.aMonitors).toBe(0);
    expect(options.workerConcurrency).toBe(50);
    expect(Object.isFrozen(options)).toBe(true);
  });

  it('refuses a frequency below 10 s and a window shorter than it, naming the option', () => {
    expect(() => parseFairShareOptions(['--every', '5'])).toThrow(/--every: /);
    expect(() => parseFairShareOptions(['--window', '5'])).toThrow(/--window: /);
    expect(() => parseFairShareOptions(['--a-monitors', 'many'])).toThrow(/--a-monitors: /);
  });
});

describe("an organization's figures of the window", () => {
  it('counts runs, gaps by reason and unreported slots, and the lateness of the runs', () => {
    const figures = organizationFigures({ ...window, runs: [run(2_000, 40), run(12_000, 900)], gaps: [] });
    expect(figures).toMatchObject({ expected: 3, ran: 2, gaps: {}, unreported: 1, unfinished: 0 });
    expect(figures.lateness).toEqual({ p50: 40, p95: 900, p99: 900, max: 900 });
    expect(figures.checksPerSecond).toBeCloseTo(2 / 30);
    expect(settled(figures)).toBe(false);
  });

  it('holds when every slot ran and p99 is under 1 s', () => {
    const runs = [run(2_000, 10), run(12_000, 20), run(22_000, 999)];
    const verdict = fairShareVerdict(organizationFigures({ ...window, runs, gaps: [] }));
    expect(verdict.holds).toBe(true);
    expect(verdict.line).toMatch(/^verdict: HOLDS: org-b lateness p99 0\.999 s/);
  });

  it('fails when a slot was shed, however punctual the rest', () => {
    const figures = organizationFigures({
      ...window,
      runs: [run(2_000, 10), run(12_000, 10)],
      gaps: [gap(22_000, 'shed')],
    });
    expect(figures.gaps).toEqual({ shed: 1 });
    expect(settled(figures)).toBe(true);
    expect(fairShareVerdict(figures)).toMatchObject({ holds: false });
    expect(figuresTable([figures])[2]).toContain('| shed 1 |');
  });

  it('fails when p99 reaches 1 s, and counts a run still going as unfinished', () => {
    const runs = [run(2_000, 10), run(12_000, 1_000), run(22_000, 5, 'running')];
    const figures = organizationFigures({ ...window, runs, gaps: [] });
    expect(figures.unfinished).toBe(1);
    expect(fairShareVerdict(figures).holds).toBe(false);
  });
});
