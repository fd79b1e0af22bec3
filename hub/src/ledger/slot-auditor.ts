import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import { startPeriodic, type Periodic } from '../system/periodic.js';
import { expectedSlots } from './expected-slots.js';
import { deleteExpiredGaps } from './gap-retention.js';
import { advanceAuditCursor, lockAuditCursor, readAuditedMonitors } from './slot-audit.repository.js';
import { recordGaps } from './slot-gap.repository.js';

const CURSOR = 'slots';
/** Monitors per read: a chunk's expected slots go to the database as one statement. */
const MONITOR_CHUNK = 1_000;
/** At most this much time per audited window, so one catching up after an outage stays a bounded transaction. */
const MAX_WINDOW_MS = 60_000;
/** Windows per pass at most: a pass catching up ends, and `close()` waits for no more than this. */
const MAX_WINDOWS_PER_PASS = 10;
/** Beyond the run timeout and the write retries: a slot's job may start this late and still write its run. */
const SETTLE_MARGIN_MS = 60_000;
const DAY_MS = 86_400_000;

export type AuditSettings = Pick<
  Settings,
  'LOCATIONS' | 'RUN_TIMEOUT_MS' | 'RUN_RECORD_RETRY_SECONDS' | 'RUN_RETENTION_DAYS'
>;

/**
 * How long after its due time a slot is audited: by then its run has timed out and its result's writes have
 * been retried for good, so no run row or gap can still come for it (docs/adr/0025-slot-ledger.md).
 */
export function slotSettleMs(
  settings: Pick<AuditSettings, 'RUN_TIMEOUT_MS' | 'RUN_RECORD_RETRY_SECONDS'>,
): number {
  return settings.RUN_TIMEOUT_MS + settings.RUN_RECORD_RETRY_SECONDS * 1000 + SETTLE_MARGIN_MS;
}

export type AuditOutcome =
  /** Another scheduler holds the cursor: it audits this window. */
  | { status: 'busy' }
  /** No cursor yet: it now starts at `through` (now − settle), nothing before it is audited. */
  | { status: 'started'; through: Date }
  /** Nothing settled since the last audit. */
  | { status: 'current' }
  /** (from, to] audited: `expected` slots were due, `lost` of them had neither a run nor a gap. */
  | { status: 'audited'; from: Date; to: Date; expected: number; lost: number; more: boolean };

/**
 * Audits the next settled window (audited_through, min(now − settle, audited_through + 1 min)]: each due slot of
 * each monitor at each scheduled location that has neither a run row nor a gap gets a gap `lost`. The cursor
 * row is locked (SKIP LOCKED: a second scheduler skips the pass) and advanced in the transaction that records
 * the gaps, so a window is audited once, whole or not at all.
 */
export async function auditSlots(options: {
  db: Db;
  clock: Clock;
  settings: AuditSettings;
}): Promise<AuditOutcome> {
  const { db, clock, settings } = options;
  const nowMs = clock.now().getTime();
  const settledMs = nowMs - slotSettleMs(settings);
  const locations = new Set(settings.LOCATIONS.map((l) => l.name));
  return db.transaction().execute(async (tx): Promise<AuditOutcome> => {
    const cursor = await lockAuditCursor(tx, CURSOR, new Date(settledMs));
    if (cursor === 'busy') return { status: 'busy' };
    if (cursor === 'created') return { status: 'started', through: new Date(settledMs) };
    // Gaps older than the runs' retention would be deleted at once: an audit resumed after so long starts there.
    const fromMs = Math.max(cursor.auditedThrough.getTime(), nowMs - settings.RUN_RETENTION_DAYS * DAY_MS);
    if (fromMs >= settledMs) return { status: 'current' };
    const toMs = Math.min(settledMs, fromMs + MAX_WINDOW_MS);
    let expected = 0;
    let lost = 0;
    for (let after: { organizationId: string; id: string } | undefined; ;) {
      const monitors = await readAuditedMonitors(tx, { after, before: new Date(toMs), limit: MONITOR_CHUNK });
      const slots = monitors.flatMap((monitor) => expectedSlots(monitor, locations, fromMs, toMs));
      expected += slots.length;
      lost += await recordGaps(
        tx,
        slots.map((slot) => ({ ...slot, reason: 'lost' as const })),
      );
      const last = monitors.at(-1);
      if (last === undefined || monitors.length < MONITOR_CHUNK) break;
      after = { organizationId: last.organization_id, id: last.id };
    }
    await advanceAuditCursor(tx, CURSOR, new Date(toMs));
    return {
      status: 'audited',
      from: new Date(fromMs),
      to: new Date(toMs),
      expected,
      lost,
      more: toMs < settledMs,
    };
  });
}

/**
 * The scheduler's slot auditor: every `intervalMs`, the windows settled since the last pass (several replicas
 * share the work through the cursor's lock). A slot found lost is logged as a warning with its window. Each pass
 * first deletes the gaps past the runs' retention.
 */
export function startSlotAuditor(options: {
  db: Db;
  log: Logger;
  clock: Clock;
  settings: AuditSettings;
  intervalMs: number;
}): Periodic {
  const { log, db, clock, settings } = options;
  return startPeriodic(
    async () => {
      // Gaps go with the runs they stand for: past RUN_RETENTION_DAYS (an index probe when there are none).
      await deleteExpiredGaps({ db, clock, retentionDays: settings.RUN_RETENTION_DAYS });
      for (let window = 0; window < MAX_WINDOWS_PER_PASS; window += 1) {
        const outcome = await auditSlots(options);
        if (outcome.status === 'started')
          log.info({ through: outcome.through }, 'slot audit starts: slots due after this are audited');
        if (outcome.status !== 'audited') return;
        if (outcome.lost > 0)
          log.warn(
            { from: outcome.from, to: outcome.to, expected: outcome.expected, lost: outcome.lost },
            'slots lost: neither run nor reported (counted in meerkat_slots_missed_total, reason "lost")',
          );
        if (!outcome.more) return;
      }
    },
    options.intervalMs,
    (error) => log.error({ err: error }, 'slot audit failed'),
  );
}
