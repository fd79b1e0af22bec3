import { describe, expect, it } from 'vitest';
import type { MaintenanceSchedule } from '../../hub/src/contract/maintenance-definition.js';
import { cronProblem, nextOccurrence, occurrenceAt } from '../../hub/src/maintenance/window-schedule.js';

const at = (iso: string) => new Date(iso);
const inWindow = (schedule: MaintenanceSchedule, iso: string) =>
  occurrenceAt(schedule, at(iso)) !== undefined;

describe('maintenance window schedules', () => {
  // Saturday 23:00 in Berlin for 3 hours. On 2026-03-28 the window crosses midnight into the night clocks jump
  // from 02:00 CET to 03:00 CEST: it starts at 22:00Z and lasts three elapsed hours, to 01:00Z (03:00 CEST).
  const saturdayNight: MaintenanceSchedule = {
    type: 'cron',
    cron: '0 23 * * 6',
    timezone: 'Europe/Berlin',
    durationMinutes: 180,
  };
  // The same window as an RRULE (ADR 0045): both forms must hold the same instants.
  const saturdayNightRule: MaintenanceSchedule = {
    type: 'rrule',
    rrule: 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=23;BYMINUTE=0',
    startsAt: '2026-01-01T00:00:00Z',
    timezone: 'Europe/Berlin',
    durationMinutes: 180,
  };

  describe.each([
    ['cron', saturdayNight],
    ['rrule', saturdayNightRule],
  ])('a weekly %s window', (_form, weekly) => {
    it('holds across midnight through a DST change, for its elapsed duration', () => {
      expect(inWindow(weekly, '2026-03-28T21:59:59Z')).toBe(false);
      expect(occurrenceAt(weekly, at('2026-03-28T23:30:00Z'))).toEqual({
        start: at('2026-03-28T22:00:00Z'),
        end: at('2026-03-29T01:00:00Z'),
      });
      expect(inWindow(weekly, '2026-03-29T00:59:59Z')).toBe(true);
      expect(inWindow(weekly, '2026-03-29T01:00:00Z')).toBe(false);
    });

    it('recurs weekly at the same wall time, which moves in UTC with summer time', () => {
      expect(nextOccurrence(weekly, at('2026-03-29T01:00:00Z'))?.start).toEqual(at('2026-04-04T21:00:00Z'));
      expect(inWindow(weekly, '2026-04-04T21:30:00Z')).toBe(true);
      expect(inWindow(weekly, '2026-04-05T00:00:00Z')).toBe(false);
      // Back to winter time in October: 23:00 CET is 22:00Z again.
      expect(nextOccurrence(weekly, at('2026-10-30T00:00:00Z'))?.start).toEqual(at('2026-10-31T22:00:00Z'));
    });
  });

  it('a start that DST skips moves past the gap, and one it repeats starts once', () => {
    const daily0230: MaintenanceSchedule = {
      type: 'cron',
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      durationMinutes: 30,
    };
    // 02:30 does not exist on 2026-03-29; the window opens at 03:30 CEST (01:30Z).
    expect(nextOccurrence(daily0230, at('2026-03-28T12:00:00Z'))?.start).toEqual(at('2026-03-29T01:30:00Z'));
    // 02:30 happens twice on 2026-10-25; the window opens once.
    const first = nextOccurrence(daily0230, at('2026-10-24T12:00:00Z'));
    expect(nextOccurrence(daily0230, first?.start as Date)?.start).toEqual(at('2026-10-26T01:30:00Z'));
  });

  it('activeFrom and activeUntil bound the recurrence; a one-off window is its own start and end', () => {
    const bounded: MaintenanceSchedule = {
      ...saturdayNight,
      activeFrom: '2026-04-01T00:00:00Z',
      activeUntil: '2026-04-10T00:00:00Z',
    };
    expect(inWindow(bounded, '2026-03-28T23:00:00Z')).toBe(false);
    expect(inWindow(bounded, '2026-04-04T22:00:00Z')).toBe(true);
    expect(inWindow(bounded, '2026-04-11T22:00:00Z')).toBe(false);
    expect(nextOccurrence(bounded, at('2026-04-05T00:00:00Z'))).toBeUndefined();
    const once: MaintenanceSchedule = {
      type: 'once',
      startsAt: '2026-05-01T10:00:00Z',
      endsAt: '2026-05-01T11:00:00Z',
    };
    expect(inWindow(once, '2026-05-01T10:00:00Z')).toBe(true);
    expect(inWindow(once, '2026-05-01T11:00:00Z')).toBe(false);
  });

  it('names what is wrong with a cron expression', () => {
    expect(cronProblem('0 23 * * 6', 'Europe/Berlin')).toBeUndefined();
    expect(cronProblem('0 23 * *', 'Europe/Berlin')).toMatch(/five fields/);
    expect(cronProblem('0 25 * * *', 'Europe/Berlin')).toBeDefined();
  });
});
