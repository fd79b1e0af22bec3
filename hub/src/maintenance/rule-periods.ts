import rrulePackage, { type Options } from 'rrule';
import type { RecurrenceRule } from './recurrence-rule.js';

const { RRule, Frequency } = rrulePackage;

const DAY_MS = 86_400_000;
/** A step that carries rrule past its last year (9999) after one period, so it expands exactly one. */
const BEYOND_LAST_YEAR = 4_000_000;
/** No period is expanded after this year, well before rrule's last (9999). */
const LAST_EXPANDED_YEAR = 9000;

/**
 * The rule with what RFC 5545 takes from DTSTART made explicit (time of day, and the weekday or day of month a
 * rule that names none recurs on), so that each period can be expanded from its own start.
 */
export function withStartDefaults(rule: RecurrenceRule, start: Date): Partial<Options> {
  const options: Partial<Options> = { ...rule.options, bysecond: [0] };
  options.byhour ??= [start.getUTCHours()];
  options.byminute ??= [start.getUTCMinutes()];
  const namesDays = options.bymonthday != null || options.byweekday != null;
  if (!namesDays && rule.freq === Frequency.YEARLY) {
    options.bymonth ??= [start.getUTCMonth() + 1];
    options.bymonthday = [start.getUTCDate()];
  }
  if (!namesDays && rule.freq === Frequency.MONTHLY) options.bymonthday = [start.getUTCDate()];
  if (!namesDays && rule.freq === Frequency.WEEKLY) options.byweekday = [(start.getUTCDay() + 6) % 7];
  return options;
}

const dayOf = (floating: Date) =>
  Date.UTC(floating.getUTCFullYear(), floating.getUTCMonth(), floating.getUTCDate());

function weekOf(floating: Date, weekStart: number): number {
  const weekday = (floating.getUTCDay() + 6) % 7;
  return dayOf(floating) - ((weekday - weekStart + 7) % 7) * DAY_MS;
}

const weekStartOf = (options: Partial<Options>) =>
  typeof options.wkst === 'number' ? options.wkst : (options.wkst?.weekday ?? 0);

/** The index of the period holding `floating`, counted from the one holding the rule's start. */
export function periodIndexOf(rule: RecurrenceRule, start: Date, floating: Date): number {
  switch (rule.freq) {
    case Frequency.DAILY:
      return Math.floor((dayOf(floating) - dayOf(start)) / DAY_MS);
    case Frequency.WEEKLY: {
      const weekStart = weekStartOf(rule.options);
      return Math.floor((weekOf(floating, weekStart) - weekOf(start, weekStart)) / (7 * DAY_MS));
    }
    case Frequency.MONTHLY:
      return (
        (floating.getUTCFullYear() - start.getUTCFullYear()) * 12 +
        floating.getUTCMonth() -
        start.getUTCMonth()
      );
    default:
      return floating.getUTCFullYear() - start.getUTCFullYear();
  }
}

function periodStart(rule: RecurrenceRule, start: Date, index: number): Date {
  switch (rule.freq) {
    case Frequency.DAILY:
      return new Date(dayOf(start) + index * DAY_MS);
    case Frequency.WEEKLY:
      return new Date(weekOf(start, weekStartOf(rule.options)) + index * 7 * DAY_MS);
    case Frequency.MONTHLY:
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + index, 1));
    default:
      return new Date(Date.UTC(start.getUTCFullYear() + index, 0, 1));
  }
}

/** The first period at or after `index` that the rule's INTERVAL keeps. */
export const keptPeriodFrom = (rule: RecurrenceRule, index: number) =>
  Math.ceil(Math.max(index, 0) / rule.interval) * rule.interval;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const janFirstWeekday = (year: number) => new Date(Date.UTC(year, 0, 1)).getUTCDay();

/**
 * The year of 9960 to 9987 with the calendar of `year` (leap or not, and the weekday of 1 January): these 28 years
 * hold every one of the 14 calendars, and none of them is a century that skips its leap day.
 */
function lateYearLike(year: number): number {
  for (let late = 9960; late < 9988; late += 1)
    if (isLeap(late) === isLeap(year) && janFirstWeekday(late) === janFirstWeekday(year)) return late;
  return year;
}

/**
 * The floating starts of period `index` (kept by INTERVAL; none before the rule's start), in order. rrule expands
 * it with a step past its last year (9999), so it stops after this one period even when the period, and every one
 * after it, has no start. A day or week is first moved to a late year with the same calendar, as rrule steps a
 * day at a time through the months up to 9999.
 */
export function startsInPeriod(
  rule: RecurrenceRule,
  options: Partial<Options>,
  start: Date,
  index: number,
): Date[] {
  const from = new Date(Math.max(periodStart(rule, start, index).getTime(), start.getTime()));
  if (from.getUTCFullYear() > LAST_EXPANDED_YEAR) return [];
  const byDays = rule.freq === Frequency.DAILY || rule.freq === Frequency.WEEKLY;
  const year = from.getUTCFullYear();
  const shiftMs = byDays ? Date.UTC(lateYearLike(year), 0, 1) - Date.UTC(year, 0, 1) : 0;
  const expanded = new RRule({
    ...options,
    freq: rule.freq,
    interval: BEYOND_LAST_YEAR,
    dtstart: new Date(from.getTime() + shiftMs),
  }).all();
  return expanded.map((date) => new Date(date.getTime() - shiftMs));
}
