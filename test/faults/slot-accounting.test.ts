import { describe, expect, it } from 'vitest';
import { scheduleOffsetMs } from '../../hub/src/scheduling/schedules.js';
import {
  countSlots,
  expectedSlots,
  formatCounts,
  isFalseFailure,
  ledgerOf,
  requestsBeyondRuns,
  type RecordedRun,
} from './slot-accounting.js';

const everyTen = { monitorId: 'm1', everyMs: 10_000, offsetMs: 2_500 };
const run = (overrides: Partial<RecordedRun>): RecordedRun => ({
  monitorId: 'm1',
  scheduleSlot: null,
  status: 'completed',
  startedAt: null,
  completedAt: null,
  ...overrides,
});

describe('slot accounting of the fault suite', () => {
  it('expects the slots k * every + offset inside [from, to), the start included and the end not', () => {
    expect(expectedSlots(everyTen, 100_000, 130_000)).toEqual([102_500, 112_500, 122_500]);
    expect(expectedSlots(everyTen, 102_500, 122_500)).toEqual([102_500, 112_500]);
    expect(expectedSlots(everyTen, 102_501, 112_500)).toEqual([]);
  });

  it('lands on the slots BullMQ names its jobs by for the offsets the scheduler computes', () => {
    const offsetMs = scheduleOffsetMs('acme/web/default', 10_000);
    const [first] = expectedSlots({ monitorId: 'web', everyMs: 10_000, offsetMs }, 0, 10_000_000);
    expect(first).toBe(offsetMs);
    expect(first! % 10_000).toBe(offsetMs);
  });

  it('counts recorded, missing, duplicated and stuck slots of the window only', () => {
    const counts = countSlots({
      schedules: [everyTen, { monitorId: 'm2', everyMs: 20_000, offsetMs: 0 }],
      fromMs: 100_000,
      toMs: 130_000,
      runs: [
        run({ scheduleSlot: '102500' }),
        run({ scheduleSlot: '102500', status: 'failed' }),
        run({ scheduleSlot: '112500', status: 'running' }),
        run({ scheduleSlot: '92500' }),
        run({ monitorId: 'm2', scheduleSlot: '100000', status: 'pending' }),
        run({ monitorId: 'm2', scheduleSlot: null }),
      ],
      hits: [],
    });
    expect(counts).toEqual({
      expected: 5,
      recorded: 3,
      missing: 2,
      duplicated: 1,
      stuck: 2,
      falseFailures: 0,
      missingExamples: ['m1@1970-01-01T00:02:02.500Z', 'm2@1970-01-01T00:02:00.000Z'],
    });
  });

  it('calls a failed run false when the target answered its monitor while it ran, and only then', () => {
    const failed = run({
      status: 'failed',
      scheduleSlot: '102500',
      startedAt: new Date(102_600),
      completedAt: new Date(106_000),
    });
    const answered = { monitorId: 'm1', arrivedAt: 102_700, answeredAt: 105_700 };
    expect(isFalseFailure(failed, [answered])).toBe(true);
    expect(isFalseFailure(failed, [{ ...answered, answeredAt: undefined }])).toBe(false);
    expect(isFalseFailure(failed, [{ ...answered, monitorId: 'm2' }])).toBe(false);
    expect(isFalseFailure(failed, [{ monitorId: 'm1', arrivedAt: 112_700, answeredAt: 112_800 }])).toBe(
      false,
    );
    expect(isFalseFailure({ ...failed, status: 'completed' }, [answered])).toBe(false);
    // A run failed before it started sent no request: no answer was its own.
    expect(isFalseFailure({ ...failed, startedAt: null }, [answered])).toBe(false);
  });

  it('prints the five counts the issue asks for', () => {
    const line = formatCounts('example', {
      expected: 5,
      recorded: 4,
      missing: 1,
      duplicated: 0,
      stuck: 1,
      falseFailures: 2,
    });
    expect(line).toBe('[faults] example: expected 5, recorded 4, duplicated 0, stuck 1, false failures 2');
  });

  it('counts a request beyond one per run: outside every run, or a second inside one', () => {
    const runs = [
      run({ scheduleSlot: '102500', startedAt: new Date(102_500), completedAt: new Date(102_600) }),
      run({ scheduleSlot: '112500', startedAt: new Date(131_000), completedAt: new Date(131_100) }),
    ];
    const hit = (arrivedAt: number, monitorId = 'm1') => ({
      monitorId,
      arrivedAt,
      answeredAt: arrivedAt + 5,
    });
    // A check retried late (slot 112500 checked at 131000) is its run's one request, not the next slot's second.
    expect(requestsBeyondRuns(runs, [hit(102_510), hit(131_010)], 0, 200_000).count).toBe(0);
    expect(requestsBeyondRuns(runs, [hit(102_510), hit(102_590)], 0, 200_000).count).toBe(1);
    expect(requestsBeyondRuns(runs, [hit(120_000)], 0, 200_000)).toEqual({
      count: 1,
      examples: ['m1 at 1970-01-01T00:02:00.000Z'],
    });
    expect(requestsBeyondRuns(runs, [hit(102_510, 'm2'), hit(120_000)], 0, 110_000).count).toBe(1);
    // Two runs checked at once after an outage (their spans overlap): one request each, none beyond.
    const overlapping = [
      run({ scheduleSlot: '112500', startedAt: new Date(140_000), completedAt: new Date(140_030) }),
      run({ scheduleSlot: '132500', startedAt: new Date(140_010), completedAt: new Date(140_060) }),
    ];
    expect(requestsBeyondRuns(overlapping, [hit(140_020), hit(140_045)], 0, 200_000).count).toBe(0);
    expect(
      requestsBeyondRuns(overlapping, [hit(140_020), hit(140_025), hit(140_045)], 0, 200_000).count,
    ).toBe(1);
  });

  it('tells for each due slot whether it ran, has a gap, both, or neither', () => {
    const ledger = ledgerOf({
      schedules: [everyTen],
      fromMs: 100_000,
      toMs: 140_000,
      runs: [run({ scheduleSlot: '102500' }), run({ scheduleSlot: '112500' })],
      gaps: [
        { monitorId: 'm1', scheduleSlot: '112500', reason: 'lost' },
        { monitorId: 'm1', scheduleSlot: '122500', reason: 'skipped_late' },
      ],
    });
    expect(ledger).toEqual({
      expected: 4,
      ran: 2,
      gaps: { lost: 1, skipped_late: 1 },
      both: 1,
      unreported: [{ monitorId: 'm1', slotMs: 132_500 }],
    });
  });
});
