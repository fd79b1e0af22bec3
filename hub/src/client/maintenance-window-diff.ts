import type { MaintenanceWindow } from '../maintenance/maintenance.schema.js';
import { diffJson, type FieldChange } from '../contract/definition-diff.js';
import type { MaintenanceWindowDefinition } from '../contract/maintenance-definition.js';

/** The definition a stored window was put with. */
const definitionOfWindow = (stored: MaintenanceWindow): MaintenanceWindowDefinition => ({
  name: stored.name,
  ...(stored.description === null ? {} : { description: stored.description }),
  matchers: stored.matchers,
  schedule: stored.schedule,
  excludeFromFigures: stored.excludeFromFigures,
});

/** The definition with the schedule's times as ISO instants and every matcher's operator given, for comparing. */
function normalized(definition: MaintenanceWindowDefinition): unknown {
  const instant = (at: string | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
  const { schedule } = definition;
  return {
    ...definition,
    matchers: definition.matchers.map((m) => ({ ...m, operator: m.operator ?? '=' })),
    schedule:
      schedule.type === 'once'
        ? { ...schedule, startsAt: instant(schedule.startsAt), endsAt: instant(schedule.endsAt) }
        : schedule.type === 'rrule'
          ? { ...schedule, startsAt: instant(schedule.startsAt), activeUntil: instant(schedule.activeUntil) }
          : {
              ...schedule,
              activeFrom: instant(schedule.activeFrom),
              activeUntil: instant(schedule.activeUntil),
            },
  };
}

/**
 * What putting `definition` would change of the stored window, field by field; none when the hub has it already
 * (`apply -f` and the operator then write nothing). Times compare as instants: `...00Z` and `...00.000Z` agree.
 */
export function windowChanges(
  stored: MaintenanceWindow,
  definition: MaintenanceWindowDefinition,
): FieldChange[] {
  return diffJson(normalized(definitionOfWindow(stored)), normalized(definition));
}
