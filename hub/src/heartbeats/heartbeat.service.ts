import type { Logger } from 'pino';
import { PING_PATH_PREFIX, type HeartbeatToken } from '../contract/heartbeat.js';
import { storableText } from '../contract/storable-text.js';
import type { Db } from '../db/database.js';
import { findMonitor } from '../monitors/monitor.repository.js';
import { ConflictError, NotFoundError, UnauthorizedError } from '../http/errors.js';
import {
  recordJudgedRuns,
  runAfterCommit,
  type AfterCommit,
  type RunFinishedHook,
} from '../runs/run-finished.js';
import type { Clock } from '../system/clock.js';
import { heartbeatRun } from './heartbeat-run.js';
import { missedPeriod } from './missed-period.js';
import {
  lockHeartbeatByTokenHash,
  lockOverdueHeartbeats,
  setTokenHash,
  updatePingState,
  type HeartbeatRow,
} from './heartbeat.repository.js';
import {
  heartbeatTokenHash,
  isHeartbeatTokenShaped,
  mintHeartbeatToken,
  sameTokenHash,
} from './heartbeat-token.js';

/** What a ping says: the job began, finished, or finished and failed. */
export type PingKind = 'start' | 'success' | 'fail';

/** At most this much of a ping's body is kept as its run's note. */
export const MAX_NOTE_CHARS = 1000;
/** Overdue heartbeats one pass records, in one transaction; the next pass takes the rest. */
const MISSES_PER_PASS = 200;

export interface HeartbeatServiceDeps {
  db: Db;
  clock: Clock;
  /** The hooks of every recorded run (rollups, rule evaluation, outcome counters), as a worker's. */
  hooks: readonly RunFinishedHook[];
  log: Logger;
}

export interface HeartbeatService {
  /** A new ping token for a heartbeat monitor, replacing any earlier one; shown this once. */
  mintToken(organizationId: string, monitorId: string): Promise<HeartbeatToken>;
  /** A ping: a run for `success` and `fail`, the next run's start for `start`. Unknown tokens are 401. */
  ping(token: string, kind: PingKind, note: string | undefined): Promise<void>;
  /** One failed run for each heartbeat whose deadline passed; how many were recorded. */
  recordMisses(): Promise<number>;
}

const unknownToken = () => new UnauthorizedError('unknown ping token');

function pingRun(row: HeartbeatRow, kind: 'success' | 'fail', now: Date, note: string | undefined) {
  const startedAt = row.started_at ?? now;
  const step: Record<string, unknown> = {
    nodeId: 'ping',
    type: 'HEARTBEAT',
    status: kind === 'success' ? 'passed' : 'failed',
    receivedAt: now.toISOString(),
    ...(row.started_at ? { startedAt: row.started_at.toISOString() } : {}),
    ...(note ? { note: storableText(note.slice(0, MAX_NOTE_CHARS)) } : {}),
  };
  return heartbeatRun(row, startedAt, {
    success: kind === 'success',
    errors: kind === 'success' ? [] : ['the job pinged /fail: it reported a failure'],
    steps: [step],
    completedAt: now,
    durationMs: now.getTime() - startedAt.getTime(),
  });
}

export function createHeartbeatService(deps: HeartbeatServiceDeps): HeartbeatService {
  const { db, clock, hooks } = deps;
  return {
    async mintToken(organizationId, monitorId) {
      const token = mintHeartbeatToken();
      if (!(await setTokenHash(db, organizationId, monitorId, heartbeatTokenHash(token)))) {
        if ((await findMonitor(db, organizationId, monitorId)) === undefined)
          throw new NotFoundError(`monitor ${monitorId} not found`);
        throw new ConflictError(`monitor ${monitorId} is not a heartbeat monitor`, [
          { path: 'heartbeat', message: 'only a monitor with `heartbeat` has a ping token' },
        ]);
      }
      return { token, pingPath: `${PING_PATH_PREFIX}${token}` };
    },

    async ping(token, kind, note) {
      if (!isHeartbeatTokenShaped(token)) throw unknownToken();
      const hash = heartbeatTokenHash(token);
      const afterCommit: AfterCommit[] = [];
      await db.transaction().execute(async (tx) => {
        const row = await lockHeartbeatByTokenHash(tx, hash);
        if (row === undefined || row.token_hash === null || !sameTokenHash(row.token_hash, hash))
          throw unknownToken();
        const now = clock.now();
        if (kind === 'start') {
          await updatePingState(tx, row, { started_at: now });
          return;
        }
        const deadline = new Date(now.getTime() + (row.period_seconds + row.grace_seconds) * 1000);
        await recordJudgedRuns(tx, [pingRun(row, kind, now, note)], hooks, afterCommit);
        await updatePingState(tx, row, { last_ping_at: now, started_at: null, deadline_at: deadline });
      });
      await runAfterCommit(db, afterCommit);
    },

    async recordMisses() {
      const afterCommit: AfterCommit[] = [];
      const recorded = await db.transaction().execute(async (tx) => {
        const now = clock.now();
        const overdue = await lockOverdueHeartbeats(tx, now, MISSES_PER_PASS);
        if (overdue.length === 0) return 0;
        const misses = overdue.map((row) => missedPeriod(row, now));
        await recordJudgedRuns(
          tx,
          misses.map((miss) => miss.run),
          hooks,
          afterCommit,
        );
        for (const { row, nextDeadline } of misses)
          await updatePingState(tx, row, { deadline_at: nextDeadline, started_at: null });
        deps.log.info({ recorded: misses.length }, 'missed heartbeat periods recorded');
        return misses.length;
      });
      await runAfterCommit(db, afterCommit);
      return recorded;
    },
  };
}
