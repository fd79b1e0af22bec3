// What one organization's slots of the window became (issue 33's fair share): each slot a run or a gap with its
// reason, or neither (unreported), and how late its runs started: `runs.started_at` (the moment the check got its
// place, ADR 0040) minus the slot.
import {
  ledgerOf,
  type RecordedGap,
  type RecordedRun,
  type Schedule,
} from '../../test/faults/slot-accounting.js';
import { percentile } from '../compare/window-figures.js';

export interface OrganizationFigures {
  organization: string;
  monitors: number;
  expected: number;
  ran: number;
  /** Gaps of the window's slots by reason (shed, skipped_saturated, ...). */
  gaps: Record<string, number>;
  /** Slots with neither a run nor a gap. */
  unreported: number;
  /** Runs of the window still pending or running when read. */
  unfinished: number;
  /** started_at minus the slot, in ms; NaN when nothing ran. */
  lateness: { p50: number; p95: number; p99: number; max: number };
  /** Slots run, per second of the window. */
  checksPerSecond: number;
}

export function organizationFigures(input: {
  organization: string;
  schedules: readonly Schedule[];
  runs: readonly RecordedRun[];
  gaps: readonly RecordedGap[];
  fromMs: number;
  toMs: number;
}): OrganizationFigures {
  const ledger = ledgerOf(input);
  const lateness = input.runs.flatMap((run) =>
    run.startedAt === null || run.scheduleSlot === null
      ? []
      : [run.startedAt.getTime() - Number(run.scheduleSlot)],
  );
  return {
    organization: input.organization,
    monitors: input.schedules.length,
    expected: ledger.expected,
    ran: ledger.ran,
    gaps: ledger.gaps,
    unreported: ledger.unreported.length,
    unfinished: input.runs.filter((run) => run.status === 'pending' || run.status === 'running').length,
    lateness: {
      p50: percentile(lateness, 50),
      p95: percentile(lateness, 95),
      p99: percentile(lateness, 99),
      max: percentile(lateness, 100),
    },
    checksPerSecond: ledger.ran / ((input.toMs - input.fromMs) / 1000),
  };
}

/** Whether the window's figures are final: every slot run or reported, no run still going. */
export const settled = (figures: OrganizationFigures) => figures.unreported === 0 && figures.unfinished === 0;

/** Issue 33's target for the small tenant: lateness p99 under 1 s and every slot run. */
const LATENESS_P99_TARGET_MS = 1_000;

export function fairShareVerdict(small: OrganizationFigures): { holds: boolean; line: string } {
  const gapCount = Object.values(small.gaps).reduce((sum, n) => sum + n, 0);
  const lostNone = small.ran === small.expected && gapCount === 0 && small.unreported === 0;
  const onTime = small.lateness.p99 < LATENESS_P99_TARGET_MS;
  const holds = lostNone && onTime;
  return {
    holds,
    line:
      `verdict: ${holds ? 'HOLDS' : 'FAILS'}: ${small.organization} lateness p99 ` +
      `${seconds(small.lateness.p99)} (target < ${seconds(LATENESS_P99_TARGET_MS)}), ` +
      `ran ${small.ran} + ${gapCount} gaps + ${small.unreported} unreported of ${small.expected} expected` +
      ` (${lostNone ? 'no slot lost' : 'slots lost'})`,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
const number = (value: number) => value.toLocaleString('en-US');

/** One Markdown table, a row per organization, as docs/benchmarks.md quotes it. */
export function figuresTable(rows: readonly OrganizationFigures[]): string[] {
  const gapsCell = (gaps: Record<string, number>) =>
    Object.keys(gaps).length === 0
      ? '0'
      : Object.entries(gaps)
          .map(([reason, n]) => `${reason} ${number(n)}`)
          .join(', ');
  return [
    '| organization | monitors | slots expected | ran | gaps | unreported | lateness p50 / p95 / p99 / max | checks/s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.organization} | ${number(row.monitors)} | ${number(row.expected)} | ${number(row.ran)} | ` +
        `${gapsCell(row.gaps)} | ${number(row.unreported)} | ` +
        `${[row.lateness.p50, row.lateness.p95, row.lateness.p99, row.lateness.max].map(seconds).join(' / ')} | ` +
        `${row.checksPerSecond.toFixed(1)} |`,
    ),
  ];
}
