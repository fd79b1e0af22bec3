import type { MaintenanceSchedule, MaintenanceWindowDefinition } from '../contract/maintenance-definition.js';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { NotFoundError, ValidationError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import type { MaintenanceWindow } from './maintenance.schema.js';
import {
  deleteWindow,
  findWindowByName,
  listWindows,
  upsertWindow,
  type MaintenanceWindowRow,
} from './maintenance-window.repository.js';
import { cronProblem, nextOccurrence, occurrenceAt, type Occurrence } from './window-schedule.js';
import { jsonColumn } from '../db/json-column.js';
import { recurrenceRuleProblem } from './recurrence-rule.js';
import { MAX_PERIODS_AHEAD } from './rule-occurrences.js';

const ONE_OFF_MAX_MS = 31 * 86_400_000;

function refuse(path: string, message: string): never {
  throw new ValidationError(`invalid body: ${path}: ${message}`, [{ path, message }]);
}

/** What the schema cannot say alone: a readable cron expression, an end after the start. */
function checkSchedule(definition: MaintenanceWindowDefinition): void {
  const schedule = definition.schedule;
  if (schedule.type === 'once') {
    const length = new Date(schedule.endsAt).getTime() - new Date(schedule.startsAt).getTime();
    if (length <= 0) refuse('schedule.endsAt', 'the window must end after it starts');
    if (length > ONE_OFF_MAX_MS) refuse('schedule.endsAt', 'a one-off window lasts at most 31 days');
    return;
  }
  if (schedule.type === 'rrule') return checkRule(schedule);
  const problem = cronProblem(schedule.cron, schedule.timezone);
  if (problem !== undefined) refuse('schedule.cron', problem);
  if (
    schedule.activeFrom !== undefined &&
    schedule.activeUntil !== undefined &&
    new Date(schedule.activeUntil) <= new Date(schedule.activeFrom)
  )
    refuse('schedule.activeUntil', 'must be after activeFrom');
}

/** A rule Meerkat evaluates within its bounds (ADR 0045), that starts a window within what it looks ahead. */
function checkRule(schedule: Extract<MaintenanceSchedule, { type: 'rrule' }>): void {
  const problem = recurrenceRuleProblem(schedule.rrule);
  if (problem !== undefined) refuse('schedule.rrule', problem);
  if (schedule.activeUntil !== undefined && new Date(schedule.activeUntil) <= new Date(schedule.startsAt))
    refuse('schedule.activeUntil', 'must be after startsAt');
  if (nextOccurrence(schedule, new Date(new Date(schedule.startsAt).getTime() - 1)) === undefined)
    refuse(
      'schedule.rrule',
      `the rule starts no window within ${MAX_PERIODS_AHEAD} of its periods from startsAt (or before activeUntil)`,
    );
}

const occurrenceJson = (occurrence: Occurrence | undefined) =>
  occurrence === undefined
    ? null
    : { start: occurrence.start.toISOString(), end: occurrence.end.toISOString() };

function windowRowToWindow(row: MaintenanceWindowRow, now: Date): MaintenanceWindow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    matchers: row.matchers,
    schedule: row.schedule,
    excludeFromFigures: row.exclude_from_figures,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    current: occurrenceJson(occurrenceAt(row.schedule, now)),
    next: occurrenceJson(nextOccurrence(row.schedule, now)),
  };
}

export function createMaintenanceWindowService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    async put(
      organizationId: string,
      caller: string,
      name: string,
      definition: MaintenanceWindowDefinition,
    ): Promise<{ window: MaintenanceWindow; created: boolean }> {
      if (definition.name !== name) refuse('name', `the body names "${definition.name}", the path "${name}"`);
      checkSchedule(definition);
      const now = clock.now();
      const { row, created } = await upsertWindow(db, {
        organization_id: organizationId,
        id: newId('mnt'),
        name,
        description: definition.description ?? null,
        matchers: jsonColumn(definition.matchers),
        schedule: jsonColumn(definition.schedule),
        exclude_from_figures: definition.excludeFromFigures,
        created_by: caller,
        created_at: now,
        updated_at: now,
      });
      return { window: windowRowToWindow(row, now), created };
    },

    async get(organizationId: string, name: string): Promise<MaintenanceWindow> {
      const row = await findWindowByName(db, organizationId, name);
      if (row === undefined) throw new NotFoundError(`maintenance window ${name} not found`);
      return windowRowToWindow(row, clock.now());
    },

    async list(organizationId: string): Promise<MaintenanceWindow[]> {
      const now = clock.now();
      return (await listWindows(db, [organizationId])).map((row) => windowRowToWindow(row, now));
    },

    async remove(organizationId: string, name: string): Promise<void> {
      if (!(await deleteWindow(db, organizationId, name)))
        throw new NotFoundError(`maintenance window ${name} not found`);
    },
  };
}

export type MaintenanceWindowService = ReturnType<typeof createMaintenanceWindowService>;
