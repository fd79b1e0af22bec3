import rrulePackage, { type Options } from 'rrule';
import { errorMessage } from '../log/error-facts.js';

const { RRule, Frequency } = rrulePackage;

/**
 * An RFC 5545 recurrence rule a maintenance window starts by, read by the `rrule` library and expanded on floating
 * wall times (see wall-time.ts) one period (a day, week, month or year) at a time, so that evaluating it costs a
 * bounded amount whatever the rule says (ADR 0045).
 */
export interface RecurrenceRule {
  freq: (typeof Frequency)[keyof typeof Frequency];
  interval: number;
  options: Partial<Options>;
}

/** The parts a rule may have. COUNT, UNTIL and DTSTART are the window's own fields (startsAt, activeUntil). */
const ALLOWED_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'BYDAY',
  'BYMONTHDAY',
  'BYMONTH',
  'BYHOUR',
  'BYMINUTE',
  'BYSETPOS',
  'WKST',
]);
const FREQUENCIES = new Map([
  ['DAILY', Frequency.DAILY],
  ['WEEKLY', Frequency.WEEKLY],
  ['MONTHLY', Frequency.MONTHLY],
  ['YEARLY', Frequency.YEARLY],
]);
const MAX_INTERVAL = 1000;
/** At most this many starts a day (BYHOUR values times BYMINUTE values). */
const MAX_STARTS_PER_DAY = 48;

class RuleProblem extends Error {}

const listOf = (value: number | number[] | null | undefined): number[] =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];

function checkRange(part: string, values: number[], low: number, high: number, zero = true): void {
  for (const value of values)
    if (!Number.isInteger(value) || Math.abs(value) < low || value > high || (!zero && value === 0))
      throw new RuleProblem(`${part} ${value} is out of range`);
}

function readRule(text: string): RecurrenceRule {
  const body = text.trim().replace(/^RRULE:/i, '');
  if (/[\r\n]/.test(body)) throw new RuleProblem('one RRULE line is expected, without DTSTART');
  const parts = body.split(';').map((part) => part.split('=')[0]?.trim().toUpperCase() ?? '');
  for (const part of parts)
    if (!ALLOWED_PARTS.has(part))
      throw new RuleProblem(
        part === 'COUNT' || part === 'UNTIL' || part === 'DTSTART'
          ? `${part} is not taken: give the window's startsAt and activeUntil instead`
          : `${part || 'an empty part'} is not taken; the parts are ${[...ALLOWED_PARTS].join(', ')}`,
      );
  if (new Set(parts).size !== parts.length) throw new RuleProblem('a part is given twice');
  const freqText = /(?:^|;)\s*FREQ=([A-Z]+)/i.exec(body)?.[1]?.toUpperCase();
  const freq = freqText === undefined ? undefined : FREQUENCIES.get(freqText);
  if (freq === undefined)
    throw new RuleProblem(
      `FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY${freqText === undefined ? '' : `, not ${freqText}`}`,
    );
  const byDay = /(?:^|;)\s*BYDAY=([^;]*)/i.exec(body)?.[1];
  for (const day of byDay?.split(',') ?? [])
    if (!/^([+-]?[1-9]\d?)?(MO|TU|WE|TH|FR|SA|SU)$/i.test(day.trim()))
      throw new RuleProblem(`BYDAY ${day} is not a weekday such as SA, 1MO or -1FR`);
  const options = RRule.parseString(body);
  const interval = options.interval ?? 1;
  checkRange('INTERVAL', [interval], 1, MAX_INTERVAL);
  checkRange('BYHOUR', listOf(options.byhour), 0, 23);
  checkRange('BYMINUTE', listOf(options.byminute), 0, 59);
  checkRange('BYMONTH', listOf(options.bymonth), 1, 12);
  checkRange('BYMONTHDAY', listOf(options.bymonthday), 1, 31, false);
  checkRange('BYSETPOS', listOf(options.bysetpos), 1, 366, false);
  if (
    Math.max(1, listOf(options.byhour).length) * Math.max(1, listOf(options.byminute).length) >
    MAX_STARTS_PER_DAY
  )
    throw new RuleProblem(`at most ${MAX_STARTS_PER_DAY} starts a day (BYHOUR values times BYMINUTE values)`);
  return { freq, interval, options };
}

/** Why the rule is refused, or undefined when Meerkat evaluates it. */
export function recurrenceRuleProblem(text: string): string | undefined {
  try {
    readRule(text);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** The rule, read; it was checked when the window was saved. */
export function parseRecurrenceRule(text: string): RecurrenceRule {
  return readRule(text);
}
