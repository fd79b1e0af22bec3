import { errorMessage } from '../log/error-facts.js';
import { Cron } from 'croner';
import type { MaintenanceSchedule } from '../contract/maintenance-definition.js';
import { ruleStartAfter, ruleStartHolding } from './rule-occurrences.js';

/** One occurrence of a maintenance window: from `start` (inclusive) to `end` (exclusive). */
export interface Occurrence {
  start: Date;
  end: Date;
}

/** Refuses a cron expression croner cannot read, with its reason; undefined when it is valid. */
export function cronProblem(expression: string, timezone: string): string | undefined {
  try {
    cronOf(expression, timezone).nextRun(new Date(0));
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function cronOf(expression: string, timezone: string): Cron {
  if (expression.trim().split(/\s+/).length !== 5)
    throw new TypeError('five fields are expected: minute hour day-of-month month day-of-week');
  // legacyMode: day-of-month and day-of-week are ORed when both are restricted, as in Vixie cron.
  return new Cron(expression, { timezone, paused: true, legacyMode: true });
}

/**
 * The occurrence of `schedule` that holds `at`, if any. A cron window starts at each time the expression names in
 * its time zone (croner resolves wall times that DST skips or repeats: a skipped start moves to the first instant
 * after the gap, a repeated one starts once) and lasts `durationMinutes` of elapsed time. The occurrence holding
 * `at` is the first start after `at - duration`, when it is not after `at`: one evaluation, however long ago the
 * window was defined.
 */
export function occurrenceAt(schedule: MaintenanceSchedule, at: Date): Occurrence | undefined {
  if (schedule.type === 'once') {
    const start = new Date(schedule.startsAt);
    const end = new Date(schedule.endsAt);
    return start <= at && at < end ? { start, end } : undefined;
  }
  if (schedule.type === 'rrule') return lasting(schedule.durationMinutes, ruleStartHolding(schedule, at));
  const durationMs = schedule.durationMinutes * 60_000;
  const start = cronOf(schedule.cron, schedule.timezone).nextRun(new Date(at.getTime() - durationMs));
  if (start === null || start > at) return undefined;
  if (schedule.activeFrom !== undefined && start < new Date(schedule.activeFrom)) return undefined;
  if (schedule.activeUntil !== undefined && start >= new Date(schedule.activeUntil)) return undefined;
  return { start, end: new Date(start.getTime() + durationMs) };
}

/** The next occurrence starting after `after` (the console and CLI show it), if the schedule has one. */
export function nextOccurrence(schedule: MaintenanceSchedule, after: Date): Occurrence | undefined {
  if (schedule.type === 'once') {
    const start = new Date(schedule.startsAt);
    return start > after ? { start, end: new Date(schedule.endsAt) } : undefined;
  }
  if (schedule.type === 'rrule') return lasting(schedule.durationMinutes, ruleStartAfter(schedule, after));
  const from =
    schedule.activeFrom !== undefined && new Date(schedule.activeFrom) > after
      ? new Date(new Date(schedule.activeFrom).getTime() - 1)
      : after;
  const start = cronOf(schedule.cron, schedule.timezone).nextRun(from);
  if (start === null) return undefined;
  if (schedule.activeUntil !== undefined && start >= new Date(schedule.activeUntil)) return undefined;
  return { start, end: new Date(start.getTime() + schedule.durationMinutes * 60_000) };
}

const lasting = (durationMinutes: number, start: Date | undefined): Occurrence | undefined =>
  start === undefined ? undefined : { start, end: new Date(start.getTime() + durationMinutes * 60_000) };
