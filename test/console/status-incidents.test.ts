import { describe, expect, it } from 'vitest';
import { incidentsOf, MAX_STATUS_INCIDENTS } from '../../hub/src/console/status-incidents.js';

const at = (hour: string) => new Date(`2026-11-20T${hour}:00:00.000Z`);
const failing = (monitorId: string, hour: string, failures = 1, endedFailing = true) => ({
  monitorId,
  hour: at(hour),
  failures,
  endedFailing,
});
const names = new Map([
  ['m-api', 'api'],
  ['m-web', 'web'],
]);

describe('a status page’s incidents from the hours with failures', () => {
  it('joins consecutive hours of a monitor, splits at a gap, and lists the newest first', () => {
    const incidents = incidentsOf(
      [
        failing('m-api', '08', 2),
        failing('m-api', '09', 3, false),
        failing('m-api', '12', 1, false),
        failing('m-web', '09', 4, false),
      ],
      { nameOf: (id) => names.get(id), failingNow: () => false },
    );
    expect(incidents).toEqual([
      { monitor: 'api', start: '2026-11-20T12:00:00.000Z', end: '2026-11-20T13:00:00.000Z', failedRuns: 1 },
      { monitor: 'web', start: '2026-11-20T09:00:00.000Z', end: '2026-11-20T10:00:00.000Z', failedRuns: 4 },
      { monitor: 'api', start: '2026-11-20T08:00:00.000Z', end: '2026-11-20T10:00:00.000Z', failedRuns: 5 },
    ]);
  });

  it('leaves only the latest incident of a monitor failing now open, and only if its last hour ended failing', () => {
    const hours = [failing('m-api', '08'), failing('m-api', '11'), failing('m-web', '11', 1, false)];
    const incidents = incidentsOf(hours, { nameOf: (id) => names.get(id), failingNow: () => true });
    expect(incidents.map((i) => [i.monitor, i.start.slice(11, 13), i.end])).toEqual([
      ['api', '11', null],
      ['web', '11', '2026-11-20T12:00:00.000Z'],
      ['api', '08', '2026-11-20T09:00:00.000Z'],
    ]);
  });

  it('skips a monitor deleted since, and keeps the newest incidents when there are too many', () => {
    const hours = Array.from({ length: 24 * 3 }, (_, i) =>
      // Every other hour, over three days: 36 incidents a monitor.
      ({
        ...failing(i < 36 ? 'm-api' : 'm-web', '00'),
        hour: new Date(at('00').getTime() + (i % 36) * 2 * 3_600_000),
      }),
    );
    const incidents = incidentsOf([...hours, failing('m-gone', '05')], {
      nameOf: (id) => names.get(id),
      failingNow: () => false,
    });
    expect(incidents).toHaveLength(MAX_STATUS_INCIDENTS);
    expect(new Set(incidents.map((i) => i.monitor))).toEqual(new Set(['api', 'web']));
    expect(incidents[0]?.start).toBe('2026-11-22T22:00:00.000Z');
    const starts = incidents.map((i) => i.start);
    expect([...starts].sort().reverse()).toEqual(starts);
  });
});
