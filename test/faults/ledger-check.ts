// The checker of issue 32's fault tests: after a fault, how each slot of a window ended (a run, a gap with its
// reason, both, or neither), how many requests the target got beyond one per run, and the counts of
// slot-accounting.ts, read again until the window settles. Shared by the randomized test and the tests of the
// issue's rows.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CountingTarget } from './counting-target.js';
import { scheduleOf, type FaultDeployment } from './fault-deployment.js';
import {
  countSlots,
  formatCounts,
  ledgerOf,
  requestsBeyondRuns,
  type LedgerCounts,
  type SlotCounts,
} from './slot-accounting.js';

export interface LedgerCheck {
  counts: SlotCounts;
  ledger: LedgerCounts;
  /** Slots neither run nor reported that `excused` does not allow. */
  unexcused: LedgerCounts['unreported'];
  /** Requests no run accounts for. */
  beyondRuns: number;
  /**
   * Slots without a run that may have been checked: a gap saying its worker died after sending it or its result
   * was dropped, or no word at all (a worker killed while PostgreSQL was away). A request beyond runs is a second
   * check only beyond these.
   */
  checkedGaps: number;
}

/** A job lock (30 s, hub/src/system/queue-locks.ts) and a results job's longest backoff (30 s) with room. */
const EXCUSED_QUIET_MS = 45_000;

/**
 * Reads runs and gaps of the slots due in [fromMs, toMs) of `ids` until none is stuck and none is unreported
 * (unless `excused`), for at most `settleMs`; prints what it found under `label`.
 */
export async function checkLedger(input: {
  label: string;
  deployment: FaultDeployment;
  target: CountingTarget;
  ids: readonly string[];
  fromMs: number;
  toMs: number;
  settleMs: number;
  excused?: (slotMs: number) => boolean;
  /** The organization of `ids`, when not the deployment's first. */
  organization?: string;
}): Promise<LedgerCheck> {
  const { deployment, target, fromMs, toMs, excused = () => false } = input;
  const schedules = input.ids.map((id) => scheduleOf(id, undefined, input.organization));
  const read = async () => {
    const [runs, gaps] = await Promise.all([deployment.runs(), deployment.gaps()]);
    return {
      runs,
      counts: countSlots({ schedules, fromMs, toMs, runs, hits: target.hits }),
      ledger: ledgerOf({ schedules, fromMs, toMs, runs, gaps }),
    };
  };
  // An excused slot may still come: its result in a results job waiting out a backoff, or its batch held under
  // a dead worker's lock. Excused slots are read again until their number has not moved for EXCUSED_QUIET_MS.
  let changedAt = Date.now();
  let unreportedBefore = -1;
  const unsettled = (state: { counts: SlotCounts; ledger: LedgerCounts }) => {
    const { unreported } = state.ledger;
    if (unreported.length !== unreportedBefore) changedAt = Date.now();
    unreportedBefore = unreported.length;
    return (
      state.counts.stuck > 0 ||
      unreported.some((slot) => !excused(slot.slotMs)) ||
      (unreported.length > 0 && Date.now() - changedAt < EXCUSED_QUIET_MS)
    );
  };
  let state = await read();
  for (const settleEnds = Date.now() + input.settleMs; unsettled(state) && Date.now() < settleEnds;) {
    await sleep(3_000);
    state = await read();
  }
  const { counts, ledger, runs } = state;
  const beyond = requestsBeyondRuns(runs, target.hits, fromMs, toMs);
  // A slot whose worker died after sending its check has no run: reported `skipped_worker_lost`, or not at all
  // when that worker also held its gap in memory (PostgreSQL away). Its one request is no second check.
  const checkedGaps =
    Object.entries(ledger.gaps)
      .filter(([reason]) => ['skipped_worker_lost', 'lost'].includes(reason) || reason.startsWith('dropped_'))
      .reduce((sum, [, n]) => sum + n, 0) + ledger.unreported.length;
  const unexcused = ledger.unreported.filter((slot) => !excused(slot.slotMs));
  const iso = (ms: number) => new Date(ms).toISOString();
  console.log(formatCounts(input.label, counts));
  console.log(
    `[faults]   ledger: expected ${ledger.expected}, ran ${ledger.ran}, gaps ${JSON.stringify(ledger.gaps)}, ` +
      `both ${ledger.both}, unreported ${ledger.unreported.length} (${unexcused.length} not excused)` +
      (unexcused.length > 0
        ? `, e.g. ${unexcused
            .slice(0, 5)
            .map((s) => `${s.monitorId}@${iso(s.slotMs)}`)
            .join(', ')}`
        : ''),
  );
  console.log(
    `[faults]   requests beyond one per run: ${beyond.count} (gaps that may have been checked: ${checkedGaps}) ` +
      beyond.examples.join(', '),
  );
  return { counts, ledger, unexcused, beyondRuns: beyond.count, checkedGaps };
}

/** The checker's verdict as one object, so a failure shows every line at once. */
export function ledgerVerdict(check: LedgerCheck) {
  return {
    duplicated: check.counts.duplicated,
    stuck: check.counts.stuck,
    falseFailures: check.counts.falseFailures,
    runAndGap: check.ledger.both,
    unreported: check.unexcused.length,
    secondChecks: Math.max(0, check.beyondRuns - check.checkedGaps),
  };
}

export const LEDGER_HOLDS = {
  duplicated: 0,
  stuck: 0,
  falseFailures: 0,
  runAndGap: 0,
  unreported: 0,
  secondChecks: 0,
} as const;
