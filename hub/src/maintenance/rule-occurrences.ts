import type { Options } from 'rrule';
import { parseRecurrenceRule, type RecurrenceRule } from './recurrence-rule.js';
import { keptPeriodFrom, periodIndexOf, startsInPeriod, withStartDefaults } from './rule-periods.js';
import { instantOfWallTime, wallTimeOf } from './wall-time.js';

/** The RRULE form of a window's schedule. */
export interface RuleSchedule {
  rrule: string;
  startsAt: string;
  timezone: string;
  durationMinutes: number;
  activeUntil?: string | undefined;
}

/** How many kept periods `nextStartAfter` looks through: four years of a daily rule, a thousand years of a yearly. */
export const MAX_PERIODS_AHEAD = 1500;
const DAY_MS = 86_400_000;

interface ReadSchedule {
  rule: RecurrenceRule;
  options: Partial<Options>;
  start: Date;
  timezone: string;
}

// Runs are matched against windows often; a window's rule is read once, not per run.
const readSchedules = new Map<string, ReadSchedule>();
const READ_SCHEDULES_KEPT = 1000;

function read(schedule: RuleSchedule): ReadSchedule {
  const key = `${schedule.rrule}\n${schedule.startsAt}\n${schedule.timezone}`;
  let known = readSchedules.get(key);
  if (known === undefined) {
    const rule = parseRecurrenceRule(schedule.rrule);
    const start = wallTimeOf(new Date(schedule.startsAt), schedule.timezone);
    known = { rule, options: withStartDefaults(rule, start), start, timezone: schedule.timezone };
    if (readSchedules.size >= READ_SCHEDULES_KEPT) readSchedules.clear();
    readSchedules.set(key, known);
  }
  return known;
}

/** The starts (instants) of the kept periods from the one holding `fromWall` to the one holding `toWall`. */
function startsBetween(read: ReadSchedule, fromWall: Date, toWall: Date): Date[] {
  const last = periodIndexOf(read.rule, read.start, toWall);
  const starts: Date[] = [];
  for (
    let index = keptPeriodFrom(read.rule, periodIndexOf(read.rule, read.start, fromWall));
    index <= last;
    index += read.rule.interval
  )
    for (const wall of startsInPeriod(read.rule, read.options, read.start, index))
      starts.push(instantOfWallTime(wall, read.timezone));
  return starts;
}

/** The latest start at or before `at` whose window (of `durationMinutes`) still holds `at`, if any. */
export function ruleStartHolding(schedule: RuleSchedule, at: Date): Date | undefined {
  const parsed = read(schedule);
  const durationMs = schedule.durationMinutes * 60_000;
  // A day either side covers any UTC offset change between a wall time and its instant.
  const from = wallTimeOf(new Date(at.getTime() - durationMs - DAY_MS), schedule.timezone);
  const to = wallTimeOf(new Date(at.getTime() + DAY_MS), schedule.timezone);
  const holding = startsBetween(parsed, from, to).filter(
    (start) => start <= at && at.getTime() < start.getTime() + durationMs,
  );
  const found = holding.at(-1);
  if (found === undefined) return undefined;
  return schedule.activeUntil !== undefined && found >= new Date(schedule.activeUntil) ? undefined : found;
}

// The status page, the console and `maintenance list` ask for a window's next start on every read. A rule that
// starts rarely (a leap day that is a Monday) can cost a whole look-ahead (about 0.25 s at load 3): the answer is
// kept, since it holds for any later `after` until the start it found (and "none" for an hour).
const NO_START_KEPT_MS = 3_600_000;
const nextStarts = new Map<string, { after: number; start: Date | undefined; validUntil: number }>();

/** The first start after `after`, looking through at most MAX_PERIODS_AHEAD kept periods. */
export function ruleStartAfter(schedule: RuleSchedule, after: Date): Date | undefined {
  const key = `${schedule.rrule}\n${schedule.startsAt}\n${schedule.timezone}\n${schedule.activeUntil ?? ''}`;
  const known = nextStarts.get(key);
  if (known !== undefined && known.after <= after.getTime() && after.getTime() < known.validUntil)
    return known.start;
  const start = searchStartAfter(schedule, after);
  if (nextStarts.size >= READ_SCHEDULES_KEPT) nextStarts.clear();
  const validUntil = start === undefined ? after.getTime() + NO_START_KEPT_MS : start.getTime();
  nextStarts.set(key, { after: after.getTime(), start, validUntil });
  return start;
}

function searchStartAfter(schedule: RuleSchedule, after: Date): Date | undefined {
  const parsed = read(schedule);
  const until = schedule.activeUntil === undefined ? undefined : new Date(schedule.activeUntil);
  let index = keptPeriodFrom(
    parsed.rule,
    periodIndexOf(
      parsed.rule,
      parsed.start,
      wallTimeOf(new Date(after.getTime() - DAY_MS), schedule.timezone),
    ),
  );
  for (let examined = 0; examined < MAX_PERIODS_AHEAD; examined += 1, index += parsed.rule.interval) {
    for (const wall of startsInPeriod(parsed.rule, parsed.options, parsed.start, index)) {
      const start = instantOfWallTime(wall, schedule.timezone);
      if (until !== undefined && start >= until) return undefined;
      if (start > after) return start;
    }
  }
  return undefined;
}
