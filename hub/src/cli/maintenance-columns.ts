import type { MaintenanceSchedule } from '../contract/maintenance-definition.js';
import {
  MAINTENANCE_WINDOW_API_VERSION,
  MAINTENANCE_WINDOW_KIND,
} from '../contract/maintenance-window-resource.js';
import type { MaintenanceWindow, Silence } from '../maintenance/maintenance.schema.js';
import { describeMatchers } from './matcher-arguments.js';
import type { Column } from './output-format.js';
import { age } from './resource-columns.js';

// The columns of `meerkat get silences|maintenancewindows` (and `silence list`, `maintenance list`).

/** `in 2h` for an instant to come, `3m ago` for one past. */
function relative(at: string, now: Date): string {
  return Date.parse(at) > now.getTime()
    ? `in ${age(now.toISOString(), new Date(at))}`
    : `${age(at, now)} ago`;
}

export const silenceColumns = (now: Date): Column<Silence>[] => [
  { title: 'ID', cell: (s) => s.id },
  { title: 'STATE', cell: (s) => s.state },
  { title: 'MATCHERS', cell: (s) => describeMatchers(s.matchers) },
  { title: 'STARTS', cell: (s) => relative(s.startsAt, now), wide: true },
  { title: 'ENDS', cell: (s) => relative(s.endsAt, now) },
  { title: 'CREATED BY', cell: (s) => s.createdBy },
  { title: 'EXPIRED BY', cell: (s) => s.expiredBy ?? '', wide: true },
  { title: 'COMMENT', cell: (s) => s.comment },
];

function describeSchedule(schedule: MaintenanceSchedule): string {
  if (schedule.type === 'once') return `once ${schedule.startsAt} to ${schedule.endsAt}`;
  if (schedule.type === 'rrule')
    return `rrule "${schedule.rrule}" ${schedule.timezone} for ${schedule.durationMinutes}m`;
  return `cron "${schedule.cron}" ${schedule.timezone} for ${schedule.durationMinutes}m`;
}

export const windowColumns = (now: Date): Column<MaintenanceWindow>[] => [
  { title: 'NAME', cell: (w) => w.name },
  { title: 'SCHEDULE', cell: (w) => describeSchedule(w.schedule) },
  { title: 'MATCHERS', cell: (w) => describeMatchers(w.matchers) },
  { title: 'ACTIVE', cell: (w) => (w.current === null ? 'no' : `until ${w.current.end}`) },
  { title: 'NEXT', cell: (w) => (w.next === null ? '<none>' : relative(w.next.start, now)) },
  { title: 'FIGURES', cell: (w) => (w.excludeFromFigures ? 'excluded' : 'counted'), wide: true },
  { title: 'DESCRIPTION', cell: (w) => w.description ?? '', wide: true },
];

/**
 * A window as `get -o yaml|json` prints it: a MaintenanceWindow resource whose spec is the definition, so that
 * `apply -f` takes it back; the hub's own fields are its status.
 */
export function windowManifest(window: MaintenanceWindow) {
  const { id, name, description, matchers, schedule, excludeFromFigures } = window;
  return {
    apiVersion: MAINTENANCE_WINDOW_API_VERSION,
    kind: MAINTENANCE_WINDOW_KIND,
    metadata: { name, creationTimestamp: window.createdAt },
    spec: { name, ...(description === null ? {} : { description }), matchers, schedule, excludeFromFigures },
    status: { windowId: id, updatedAt: window.updatedAt, current: window.current, next: window.next },
  };
}
