import {
  MONITOR_SCHEMA_VERSION,
  monitorDefinitionSchema,
  type Monitor,
  type MonitorDefinition,
} from '../contract/monitor-definition.js';
import type { CurrentStoredDefinition, StoredDefinition } from '../db/tables.js';
import {
  monitorSchemaMigrations,
  upgradeDefinition,
  type MonitorSchemaMigration,
} from './monitor-schema-migrations.js';

/** A monitor's definition fields as the API answers them (contract/monitor-definition.ts `monitorSchema`). */
export type AnsweredDefinition = Omit<Monitor, 'id' | 'createdAt' | 'updatedAt'>;

/** Whether `definition` was stored under the current schema version (its `version`, repeated by `schema_version`). */
function isCurrent(definition: StoredDefinition): definition is CurrentStoredDefinition {
  return definition.version === MONITOR_SCHEMA_VERSION;
}

/**
 * The one place a stored definition becomes the current shape (ADR 0042): a current one as stored (PUT parsed it
 * before it was written), an older one upgraded through `migrations` and parsed, so a run never executes a shape
 * it does not know. Throws when no migration path leads from its version.
 */
export function currentDefinition(
  definition: StoredDefinition,
  migrations: readonly MonitorSchemaMigration[] = monitorSchemaMigrations,
): MonitorDefinition {
  if (isCurrent(definition)) return definition;
  const upgraded = upgradeDefinition(definition, definition.version ?? 'none', migrations);
  return monitorDefinitionSchema.parse(upgraded.definition);
}

/**
 * A stored definition as the API answers it: as stored, under the version it names (docs/hub-api: an older one
 * is upgraded only on `?version=latest`). The contract's Monitor takes any `version`; an older document's other
 * fields are answered unchecked, and this is the one place that says so.
 */
export function answeredDefinition(definition: StoredDefinition): AnsweredDefinition {
  if (isCurrent(definition)) return definition;
  return definition as AnsweredDefinition;
}
