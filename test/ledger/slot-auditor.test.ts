import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locationsSetting } from '../../hub/src/config/locations.js';
import type { Db } from '../../hub/src/db/database.js';
import { SCHEDULE_PROPAGATION_MS } from '../../hub/src/ledger/expected-slots.js';
import { pino } from 'pino';
import {
  auditSlots,
  slotSettleMs,
  startSlotAuditor,
  type AuditOutcome,
} from '../../hub/src/ledger/slot-auditor.js';
import { recordGaps } from '../../hub/src/ledger/slot-gap.repository.js';
import { databaseEngines } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { gapKeys, gapTotals, gridSlots, insertLedgerMonitor, insertSlotRun, ORG } from './ledger-rows.js';

const MINUTE = 60_000;
const settings = {
  LOCATIONS: locationsSetting.parse('default:worker,eu-west:worker'),
  RUN_TIMEOUT_MS: 1_000,
  RUN_RECORD_RETRY_SECONDS: 10,
  RUN_RETENTION_DAYS: 30,
};
const SETTLE_MS = slotSettleMs(settings);
const T0 = Math.floor(Date.now() / 1000) * 1000;
const S0 = T0 - SETTLE_MS;
const HOURS_AGO = new Date(T0 - 2 * 3_600_000);

describe.each(databaseEngines)('the slot auditor on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  let nowMs: number;
  const clock = { now: () => new Date(nowMs) };
  const audit = () => auditSlots({ db, clock, settings });
  /** Audits until nothing settled is left, returning every outcome. */
  const auditAll = async () => {
    const outcomes: AuditOutcome[] = [];
    for (;;) {
      const outcome = await audit();
      outcomes.push(outcome);
      if (outcome.status !== 'audited' || !outcome.more) return outcomes;
    }
  };

  beforeEach(async () => {
    ({ db, dispose } = await engine.open());
    nowMs = T0;
  });
  afterEach(() => dispose());

  it('starts at now minus the settle delay, then finds exactly the slots without run or gap, once', async () => {
    expect(await audit()).toEqual({ status: 'started', through: new Date(S0) });
    const S1 = S0 + 5 * MINUTE;
    const createdInWindow = new Date(S0 + 150_000);
    await insertLedgerMonitor(db, { id: 'steady', createdAt: HOURS_AGO });
    await insertLedgerMonitor(db, { id: 'new', createdAt: createdInWindow });
    await insertLedgerMonitor(db, {
      id: 'changed-later',
      createdAt: HOURS_AGO,
      updatedAt: new Date(S1 + 1000),
    });
    await insertLedgerMonitor(db, {
      id: 'everywhere',
      createdAt: HOURS_AGO,
      everyMinutes: 2,
      locations: ['default', 'eu-west', 'not-scheduled'],
    });
    const steady = gridSlots('steady', 'default', MINUTE, S0, S1);
    expect(steady).toHaveLength(5);
    // steady: a run for its first slot, a gap reported for its second, nothing for the other three.
    await insertSlotRun(db, 'steady', 'default', steady[0]!);
    await recordGaps(db, [
      {
        organizationId: ORG,
        monitorId: 'steady',
        location: 'default',
        slotMs: steady[1]!,
        reason: 'dropped_error',
      },
    ]);
    // everywhere: every slot at default ran; none at eu-west did; not-scheduled is no location of this hub.
    for (const slot of gridSlots('everywhere', 'default', 2 * MINUTE, S0, S1))
      await insertSlotRun(db, 'everywhere', 'default', slot);
    // A slot due after the window ran: it is no business of this audit.
    const unsettled = gridSlots('steady', 'default', MINUTE, S1, S1 + MINUTE)[0]!;
    await insertSlotRun(db, 'steady', 'default', unsettled);

    nowMs = T0 + 5 * MINUTE;
    const outcomes = await auditAll();
    const audited = outcomes.filter((o) => o.status === 'audited');
    expect(audited.at(-1)).toMatchObject({ to: new Date(S1), more: false });
    expect(outcomes.at(-1)).toEqual({ status: 'audited', ...audited.at(-1) });

    const newSlots = gridSlots(
      'new',
      'default',
      MINUTE,
      createdInWindow.getTime() + SCHEDULE_PROPAGATION_MS,
      S1,
    );
    const expected = [
      ...steady.slice(2).map((s) => `steady/default/${s} lost`),
      `steady/default/${steady[1]} dropped_error`,
      ...newSlots.map((s) => `new/default/${s} lost`),
      ...gridSlots('everywhere', 'eu-west', 2 * MINUTE, S0, S1).map((s) => `everywhere/eu-west/${s} lost`),
    ].sort();
    expect(await gapKeys(db)).toEqual(expected);
    const lost = expected.length - 1;
    expect(audited.reduce((sum, o) => sum + (o.status === 'audited' ? o.lost : 0), 0)).toBe(lost);
    expect(await gapTotals(db)).toEqual({
      'default/dropped_error': 1,
      'default/lost': lost - gridSlots('everywhere', 'eu-west', 2 * MINUTE, S0, S1).length,
      'eu-west/lost': gridSlots('everywhere', 'eu-west', 2 * MINUTE, S0, S1).length,
    });

    // Nothing settled since: nothing audited, nothing counted again.
    expect(await audit()).toEqual({ status: 'current' });
    // A minute later only the next minute's slots are audited; the run of `unsettled` keeps it out.
    nowMs += MINUTE;
    await auditAll();
    const next = (await gapKeys(db)).filter((key) => !expected.includes(key));
    const nextExpected = [
      ...gridSlots('new', 'default', MINUTE, S1, S1 + MINUTE).map((s) => `new/default/${s} lost`),
      ...gridSlots('changed-later', 'default', MINUTE, S1 + 1000 + SCHEDULE_PROPAGATION_MS, S1 + MINUTE).map(
        (s) => `changed-later/default/${s} lost`,
      ),
      ...gridSlots('everywhere', 'eu-west', 2 * MINUTE, S1, S1 + MINUTE).map(
        (s) => `everywhere/eu-west/${s} lost`,
      ),
      ...gridSlots('everywhere', 'default', 2 * MINUTE, S1, S1 + MINUTE).map(
        (s) => `everywhere/default/${s} lost`,
      ),
    ].sort();
    expect(next).toEqual(nextExpected);
    expect(next.some((key) => key.startsWith(`steady/default/${unsettled} `))).toBe(false);
    const rows = await db.selectFrom('slot_gaps').select('slot_at').execute();
    expect(rows.every((row) => row.slot_at.getTime() <= S1 + MINUTE)).toBe(true);
  });

  it('audits each window once when two schedulers audit at the same time', async () => {
    expect((await audit()).status).toBe('started');
    for (let i = 0; i < 40; i += 1) await insertLedgerMonitor(db, { id: `m-${i}`, createdAt: HOURS_AGO });
    nowMs = T0 + 10 * MINUTE;
    const both = await Promise.all([auditAll(), auditAll(), auditAll()]);
    const windows = both
      .flat()
      .flatMap((o) => (o.status === 'audited' ? [[o.from.getTime(), o.to.getTime(), o.lost] as const] : []))
      .sort((a, b) => a[0] - b[0]);
    // Contiguous, never overlapping, covering the whole settled time once.
    expect(windows[0]![0]).toBe(S0);
    for (let i = 1; i < windows.length; i += 1) expect(windows[i]![0]).toBe(windows[i - 1]![1]);
    let settledEnd = windows.at(-1)![1];
    // A schedulers that found the cursor busy may have stopped before the end: the rest is audited next pass.
    while (settledEnd < S0 + 10 * MINUTE) {
      const outcome = await audit();
      if (outcome.status !== 'audited') break;
      settledEnd = outcome.to.getTime();
    }
    expect(settledEnd).toBe(S0 + 10 * MINUTE);
    let expectedLost = 0;
    for (let i = 0; i < 40; i += 1)
      expectedLost += gridSlots(`m-${i}`, 'default', MINUTE, S0, settledEnd).length;
    expect((await gapKeys(db)).length).toBe(expectedLost);
    expect(await gapTotals(db)).toEqual({ 'default/lost': expectedLost });
  });

  it('deletes gaps past RUN_RETENTION_DAYS and keeps counting them', async () => {
    await insertLedgerMonitor(db, { id: 'old', createdAt: new Date(T0 - 40 * 86_400_000) });
    const gapAt = (daysAgo: number) => ({
      organizationId: ORG,
      monitorId: 'old',
      location: 'default',
      slotMs: T0 - daysAgo * 86_400_000,
      reason: 'dropped_error' as const,
    });
    await recordGaps(db, [gapAt(31), gapAt(29)]);
    const auditor = startSlotAuditor({ db, log: pino({ level: 'silent' }), clock, settings, intervalMs: 20 });
    try {
      await eventually('the old gap deleted', async () =>
        (await gapKeys(db)).length === 1 ? true : undefined,
      );
    } finally {
      await auditor.stop();
    }
    expect(await gapKeys(db)).toEqual([`old/default/${T0 - 29 * 86_400_000} dropped_error`]);
    expect(await gapTotals(db)).toEqual({ 'default/dropped_error': 2 });
  });
});
