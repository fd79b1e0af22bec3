import type { FinishedScheduledRun } from '../runs/run.repository.js';
import { heartbeatRun } from './heartbeat-run.js';
import type { HeartbeatRow } from './heartbeat.repository.js';

export interface MissedPeriod {
  row: HeartbeatRow;
  run: FinishedScheduledRun;
  /** The deadline of the first period not yet over: the next miss is judged then. */
  nextDeadline: Date;
}

function duration(seconds: number): string {
  if (seconds === 0) return '0 s';
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * The failed run of a heartbeat whose deadline passed, and its next deadline one period on. A hub that was away
 * for several periods records one run for all of them, saying how many, and jumps to the first deadline still
 * ahead: a job that stopped is one incident, not a backlog of runs for the time nobody was judging.
 */
export function missedPeriod(row: HeartbeatRow, now: Date): MissedPeriod {
  const deadline = row.deadline_at as Date;
  const periodMs = row.period_seconds * 1000;
  const missed = Math.floor((now.getTime() - deadline.getTime()) / periodMs) + 1;
  const lastPing = row.last_ping_at ? `last ping at ${row.last_ping_at.toISOString()}` : 'no ping yet';
  const error =
    `no ping within the period (${duration(row.period_seconds)}) and grace (${duration(row.grace_seconds)}): ` +
    `${lastPing}` +
    (missed > 1 ? `; ${missed} periods missed` : '');
  const run = heartbeatRun(row, now, {
    success: false,
    errors: [error],
    steps: [
      {
        nodeId: 'ping',
        type: 'HEARTBEAT',
        status: 'failed',
        deadline: deadline.toISOString(),
        lastPingAt: row.last_ping_at?.toISOString() ?? null,
        periodsMissed: missed,
      },
    ],
    completedAt: now,
    durationMs: 0,
  });
  return { row, run, nextDeadline: new Date(deadline.getTime() + missed * periodMs) };
}
