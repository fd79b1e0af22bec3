// RRULE windows (ADR 0045): wall-clock recurrence in the window's zone across DST, and bounded evaluation.
import { describe, expect, it } from 'vitest';
import type { MaintenanceSchedule } from '../../hub/src/contract/maintenance-definition.js';
import { recurrenceRuleProblem } from '../../hub/src/maintenance/recurrence-rule.js';
import { nextOccurrence, occurrenceAt } from '../../hub/src/maintenance/window-schedule.js';

const at = (iso: string) => new Date(iso);
const inWindow = (schedule: MaintenanceSchedule, iso: string) =>
  occurrenceAt(schedule, at(iso)) !== undefined;

describe('RRULE maintenance windows', () => {
  // The weekly window across midnight and DST is window-schedule.test.ts's, in both forms.
  it('recurs at the same wall time in another zone, which moves in UTC with summer time', () => {
    // America/New_York: 22:00 local is 03:00Z in winter and 02:00Z in summer (clocks go forward 2026-03-08).
    const newYork: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=22;BYMINUTE=0',
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'America/New_York',
      durationMinutes: 180,
    };
    expect(nextOccurrence(newYork, at('2026-03-01T00:00:00Z'))?.start).toEqual(at('2026-03-01T03:00:00Z'));
    expect(nextOccurrence(newYork, at('2026-03-08T00:00:00Z'))?.start).toEqual(at('2026-03-08T03:00:00Z'));
    expect(nextOccurrence(newYork, at('2026-03-09T00:00:00Z'))?.start).toEqual(at('2026-03-15T02:00:00Z'));
    expect(inWindow(newYork, '2026-03-15T04:59:00Z')).toBe(true);
  });

  it('a start DST skips is read with the offset before the gap; one it repeats starts once', () => {
    const daily0230: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'Europe/Berlin',
      durationMinutes: 30,
    };
    expect(nextOccurrence(daily0230, at('2026-03-28T12:00:00Z'))?.start).toEqual(at('2026-03-29T01:30:00Z'));
    const first = nextOccurrence(daily0230, at('2026-10-24T12:00:00Z'));
    expect(first?.start).toEqual(at('2026-10-25T00:30:00Z'));
    expect(nextOccurrence(daily0230, first?.start as Date)?.start).toEqual(at('2026-10-26T01:30:00Z'));
  });

  it('takes its time of day and weekday from startsAt, and honours INTERVAL, BYSETPOS and activeUntil', () => {
    // Every other week from Tuesday 2026-01-06 09:15 Berlin time (no BYDAY, BYHOUR, BYMINUTE given).
    const fortnightly: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=WEEKLY;INTERVAL=2',
      startsAt: '2026-01-06T08:15:00Z',
      timezone: 'Europe/Berlin',
      durationMinutes: 60,
      activeUntil: '2026-02-10T00:00:00Z',
    };
    expect(nextOccurrence(fortnightly, at('2026-01-01T00:00:00Z'))?.start).toEqual(
      at('2026-01-06T08:15:00Z'),
    );
    expect(nextOccurrence(fortnightly, at('2026-01-07T00:00:00Z'))?.start).toEqual(
      at('2026-01-20T08:15:00Z'),
    );
    expect(inWindow(fortnightly, '2026-01-13T08:30:00Z')).toBe(false);
    expect(inWindow(fortnightly, '2026-02-03T08:30:00Z')).toBe(true);
    expect(nextOccurrence(fortnightly, at('2026-02-04T00:00:00Z'))).toBeUndefined();
    // The last Friday of each month at 18:00 in Tokyo.
    const lastFriday: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;BYHOUR=18;BYMINUTE=0',
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'Asia/Tokyo',
      durationMinutes: 120,
    };
    expect(nextOccurrence(lastFriday, at('2026-02-01T00:00:00Z'))?.start).toEqual(at('2026-02-27T09:00:00Z'));
  });

  it('refuses rules it would not evaluate within bounds, naming the part', () => {
    expect(recurrenceRuleProblem('FREQ=WEEKLY;BYDAY=SA;BYHOUR=22;BYMINUTE=0')).toBeUndefined();
    expect(recurrenceRuleProblem('FREQ=MINUTELY')).toMatch(/FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY/);
    expect(recurrenceRuleProblem('FREQ=SECONDLY')).toMatch(/not SECONDLY/);
    expect(recurrenceRuleProblem('FREQ=HOURLY')).toMatch(/not HOURLY/);
    expect(recurrenceRuleProblem('FREQ=DAILY;COUNT=3')).toMatch(/COUNT is not taken/);
    expect(recurrenceRuleProblem('FREQ=DAILY;UNTIL=20270101T000000Z')).toMatch(/UNTIL is not taken/);
    expect(recurrenceRuleProblem('FREQ=DAILY;BYHOUR=25')).toMatch(/BYHOUR 25/);
    expect(recurrenceRuleProblem('FREQ=DAILY;INTERVAL=5000')).toMatch(/INTERVAL 5000/);
    expect(recurrenceRuleProblem('FREQ=DAILY;BYDAY=XX')).toBeDefined();
    expect(recurrenceRuleProblem('BYDAY=MO')).toMatch(/FREQ must be/);
    const everyMinute = `FREQ=DAILY;BYMINUTE=${Array.from({ length: 60 }, (_, i) => i).join(',')}`;
    expect(recurrenceRuleProblem(everyMinute)).toMatch(/at most 48 starts a day/);
  });

  it('a rule that never starts a window is evaluated in bounded time: no next window, none in force', () => {
    const never: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'UTC',
      durationMinutes: 60,
    };
    expect(nextOccurrence(never, at('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(occurrenceAt(never, at('2026-03-02T00:30:00Z'))).toBeUndefined();
    const leapDay: MaintenanceSchedule = { ...never, rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=1' };
    expect(nextOccurrence(leapDay, at('2026-01-01T00:00:00Z'))?.start).toEqual(at('2028-02-29T01:00:00Z'));
  });

  it('answers the next start the same whatever was asked before it (the next start is kept between reads)', () => {
    const weekly: MaintenanceSchedule = {
      type: 'rrule',
      rrule: 'FREQ=WEEKLY;BYDAY=TU;BYHOUR=6;BYMINUTE=0',
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'UTC',
      durationMinutes: 30,
    };
    const next = (iso: string) => nextOccurrence(weekly, at(iso))?.start;
    // Later first, then earlier, then inside the kept range, then at and past the start it kept.
    expect(next('2026-05-06T00:00:00Z')).toEqual(at('2026-05-12T06:00:00Z'));
    expect(next('2026-05-01T00:00:00Z')).toEqual(at('2026-05-05T06:00:00Z'));
    expect(next('2026-05-03T12:00:00Z')).toEqual(at('2026-05-05T06:00:00Z'));
    expect(next('2026-05-05T06:00:00Z')).toEqual(at('2026-05-12T06:00:00Z'));
    expect(next('2026-05-05T05:59:59Z')).toEqual(at('2026-05-05T06:00:00Z'));
  });
});
