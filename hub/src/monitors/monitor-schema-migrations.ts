import { MONITOR_SCHEMA_VERSION } from '../contract/monitor-definition.js';

/** One step that rewrites a stored definition of schema version `from` into version `to`. */
export interface MonitorSchemaMigration {
  from: string;
  to: string;
  migrate(definition: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Every released step, oldest first. Version 1.0 is the first schema, so there are none yet; the next schema
 * version adds its step here; `version=latest` answers stored monitors upgraded, without writing them.
 */
export const monitorSchemaMigrations: readonly MonitorSchemaMigration[] = [];

class UnknownSchemaVersionError extends Error {
  constructor(readonly version: string) {
    super(`no migration path from monitor schema version ${version} to ${MONITOR_SCHEMA_VERSION}`);
    this.name = new.target.name;
  }
}

/** Applies the steps from `version` up to the current one; returns the definition unchanged when current. */
export function upgradeDefinition(
  definition: Record<string, unknown>,
  version: string,
  migrations: readonly MonitorSchemaMigration[],
): { definition: Record<string, unknown>; applied: string[] } {
  let current = { definition, version };
  const applied: string[] = [];
  while (current.version !== MONITOR_SCHEMA_VERSION) {
    const step = migrations.find((m) => m.from === current.version);
    if (step === undefined) throw new UnknownSchemaVersionError(current.version);
    current = { definition: { ...step.migrate(current.definition), version: step.to }, version: step.to };
    applied.push(`${step.from}->${step.to}`);
  }
  return { definition: current.definition, applied };
}
