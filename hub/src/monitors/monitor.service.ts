import { currentDefinition } from './stored-definition.js';
import { diffJson } from '../contract/definition-diff.js';
import {
  MONITOR_SCHEMA_VERSION,
  type Monitor,
  type MonitorDefinition,
} from '../contract/monitor-definition.js';
import type { Db, DbTransaction } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { createEgressPolicies, type EgressPolicies } from '../egress/egress-policies.js';
import { monitorEgressIssues } from '../egress/monitor-egress.js';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import type { MonitorDependant } from './monitor-dependants.js';
import { NO_QUOTAS, type OrganizationQuotas, type QuotaPolicy } from '../quotas/organization-quotas.js';
import { readOrganizationQuotas } from '../quotas/quota-source.js';
import { lockOrganizationQuotas } from '../quotas/quota.repository.js';
import { quotaUsageOf } from '../quotas/quota-usage.repository.js';
import { checkDefinitionQuotas, checkMonitorCountQuota, checkRunsKeptQuota } from './monitor-quotas.js';
import {
  countMonitors,
  deleteMonitorRow,
  findMonitor,
  findMonitorByIdentity,
  findMonitors,
  findMonitorsByName,
  listMonitors,
  lockMonitor,
  lockMonitorAndNamesake,
  monitorRowToMonitor,
  upsertMonitorRow,
  type MonitorFilter,
  type MonitorIdentity,
  type MonitorRow,
} from './monitor.repository.js';
import { monitorSchemaMigrations, type MonitorSchemaMigration } from './monitor-schema-migrations.js';
import { jsonColumn } from '../db/json-column.js';
import type { Precondition } from '../http/conditional-requests.js';
import { checkPrecondition } from './monitor-etag.js';

export interface MonitorServiceDeps {
  db: Db;
  clock: Clock;
  /** Names of the configured locations (LOCATIONS); a monitor may only name these. */
  locations: readonly string[];
  /** What each location may connect to; a `base` it refuses is a 400. Default the built-in denies. */
  egress?: Pick<EgressPolicies, 'forLocation'>;
  dependants?: readonly MonitorDependant[];
  /** What one organization may own (QUOTA_* and its overrides); none when absent. */
  quotas?: QuotaPolicy;
  schemaMigrations?: readonly MonitorSchemaMigration[];
}

export interface WriteOptions {
  dryRun?: boolean;
  /** If-Match: checked on the locked row, in the write's transaction, so two writers with one ETag cannot both win. */
  ifMatch?: Precondition | undefined;
  /** What a bulk write read once for all its items (readStored), instead of each item reading it again. */
  stored?: StoredState | undefined;
}

/**
 * The rows of a bulk write's ids and the organization's quotas, read in two statements before its items are written
 * (docs/adr/0085-hub-cost-of-a-monitor-sync.md): an item whose definition its row already holds is answered from
 * them without a transaction, and a written item's transaction does not read the quotas again.
 */
export interface StoredState {
  rows: ReadonlyMap<string, MonitorRow>;
  quotas: OrganizationQuotas;
}

export interface UpsertOutcome {
  monitor: Monitor;
  created: boolean;
  changed: boolean;
}

/** Ends a dry run's transaction, so that everything it wrote is rolled back; carries what it would have done. */
class DryRunRollback extends Error {
  constructor(readonly outcome: UpsertOutcome) {
    super('dry run: rolled back');
    this.name = new.target.name;
  }
}

/** Whether the row stores `definition` as it is, under the current schema version: writing it changes nothing. */
function holds(row: MonitorRow, definition: MonitorDefinition): boolean {
  return row.schema_version === MONITOR_SCHEMA_VERSION && diffJson(row.definition, definition).length === 0;
}

function identityOf(definition: MonitorDefinition): MonitorIdentity {
  return { project: definition.project, environment: definition.environment, name: definition.name };
}

function identityConflict(otherId: string, identity: MonitorIdentity): ConflictError {
  const where = `project "${identity.project}", environment "${identity.environment}"`;
  return new ConflictError(`monitor ${otherId} already has the name "${identity.name}" in ${where}`, [
    { path: 'name', message: `already used by monitor ${otherId}` },
  ]);
}

export function createMonitorService(deps: MonitorServiceDeps) {
  const { db, clock } = deps;
  const dependants = deps.dependants ?? [];
  const migrations = deps.schemaMigrations ?? monitorSchemaMigrations;
  const policy = deps.quotas ?? { defaults: NO_QUOTAS, runRetentionDays: 1 };

  function checkLocations(definition: MonitorDefinition): void {
    const unknown = (definition.locations ?? [])
      .map((name, index) => ({ name, index }))
      .filter(({ name }) => !deps.locations.includes(name));
    if (unknown.length === 0) return;
    const configured = deps.locations.join(', ');
    const details = unknown.map(({ name, index }) => ({
      path: `locations[${index}]`,
      message: `unknown location "${name}" (configured: ${configured})`,
    }));
    throw new ValidationError(`invalid body: ${details[0]?.path}: ${details[0]?.message}`, details);
  }

  const egress = deps.egress ?? createEgressPolicies({ lists: {} });
  function checkEgress(definition: MonitorDefinition): void {
    const details = monitorEgressIssues(definition, egress);
    if (details.length > 0)
      throw new ValidationError(`invalid body: ${details[0]?.path}: ${details[0]?.message}`, details);
  }

  async function upsertInTransaction(
    tx: DbTransaction,
    organizationId: string,
    id: string,
    definition: MonitorDefinition,
    ifMatch: Precondition | undefined,
    known: OrganizationQuotas | undefined,
  ) {
    const quotas = known ?? (await readOrganizationQuotas(tx, organizationId, policy.defaults));
    checkDefinitionQuotas(definition, quotas);
    // The row and the one holding the definition's name, if another does, in one statement (both locked).
    const rows = await lockMonitorAndNamesake(tx, organizationId, id, identityOf(definition));
    const existing = rows.find((row) => row.id === id);
    checkPrecondition(ifMatch, id, existing && monitorRowToMonitor(existing));
    const counted = (existing === undefined && quotas.monitors > 0) || quotas.runsKept > 0;
    if (counted) await lockOrganizationQuotas(tx, organizationId);
    if (existing === undefined && quotas.monitors > 0)
      checkMonitorCountQuota(await countMonitors(tx, organizationId), quotas);
    const clash = rows.find((row) => row.id !== id);
    if (clash !== undefined) throw identityConflict(clash.id, identityOf(definition));
    if (existing !== undefined && holds(existing, definition)) {
      return { monitor: monitorRowToMonitor(existing), created: false, changed: false };
    }
    const now = clock.now();
    const row = await upsertMonitorRow(tx, {
      organization_id: organizationId,
      id,
      ...identityOf(definition),
      schema_version: MONITOR_SCHEMA_VERSION,
      definition: jsonColumn(definition),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
    // Judged on what is stored now, this write included; a refusal rolls the write back.
    if (quotas.runsKept > 0) {
      const { runsPerDay } = await quotaUsageOf(tx, organizationId);
      checkRunsKeptQuota(runsPerDay * policy.runRetentionDays, policy.runRetentionDays, quotas);
    }
    const monitor = monitorRowToMonitor(row);
    const previous = existing === undefined ? undefined : monitorRowToMonitor(existing);
    for (const dependant of dependants) {
      await dependant.sync(tx, { kind: 'upsert', organizationId, monitor, previous });
    }
    return { monitor, created: existing === undefined, changed: true };
  }

  /**
   * The answer of a write that would change nothing, read without a transaction (two statements, or none in a
   * bulk): the row already holds the definition under the current schema version, so its name is its own (the
   * identity is unique) and nothing is written; only the definition's quotas may still refuse it, as they would in
   * the transaction. Undefined when the write changes something, or has an If-Match to check on the locked row.
   */
  async function unchangedOutcome(
    organizationId: string,
    id: string,
    definition: MonitorDefinition,
    options: WriteOptions,
  ): Promise<UpsertOutcome | undefined> {
    if (options.ifMatch !== undefined) return undefined;
    const row = options.stored ? options.stored.rows.get(id) : await findMonitor(db, organizationId, id);
    if (row === undefined || !holds(row, definition)) return undefined;
    const quotas =
      options.stored?.quotas ?? (await readOrganizationQuotas(db, organizationId, policy.defaults));
    checkDefinitionQuotas(definition, quotas);
    return { monitor: monitorRowToMonitor(row), created: false, changed: false };
  }

  async function upsert(
    organizationId: string,
    id: string,
    definition: MonitorDefinition,
    options: WriteOptions = {},
  ): Promise<UpsertOutcome> {
    checkLocations(definition);
    checkEgress(definition);
    const unchanged = await unchangedOutcome(organizationId, id, definition, options);
    if (unchanged !== undefined) return unchanged;
    try {
      return await db.transaction().execute(async (tx) => {
        const outcome = await upsertInTransaction(
          tx,
          organizationId,
          id,
          definition,
          options.ifMatch,
          options.stored?.quotas,
        );
        // A dry run goes through every check, the dependants' included, and then rolls all of it back.
        if (options.dryRun === true) throw new DryRunRollback(outcome);
        return outcome;
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.outcome;
      // Two writers creating the same identity at once: the loser learns who won.
      if (hasSqlState(error, SqlState.uniqueViolation)) {
        const clash = await findMonitorByIdentity(db, organizationId, identityOf(definition));
        if (clash !== undefined && clash.id !== id) throw identityConflict(clash.id, identityOf(definition));
      }
      throw error;
    }
  }

  return {
    upsert,

    /** The rows of `ids` and the quotas, read once for a bulk write's items (StoredState). */
    async readStored(organizationId: string, ids: readonly string[]): Promise<StoredState> {
      const [rows, quotas] = await Promise.all([
        findMonitors(db, organizationId, ids),
        readOrganizationQuotas(db, organizationId, policy.defaults),
      ]);
      return { rows: new Map(rows.map((row) => [row.id, row])), quotas };
    },

    create(
      organizationId: string,
      definition: MonitorDefinition,
      options: { dryRun?: boolean } = {},
    ): Promise<UpsertOutcome> {
      return upsert(organizationId, newId('mon'), definition, options);
    },

    async get(organizationId: string, id: string): Promise<Monitor> {
      const row = await findMonitor(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`monitor ${id} not found`);
      return monitorRowToMonitor(row);
    },

    async list(organizationId: string, filter: MonitorFilter, page: { page: number; limit: number }) {
      const { rows, total } = await listMonitors(db, organizationId, filter, page);
      return { data: rows.map(monitorRowToMonitor), total };
    },

    /**
     * `latest` answers a monitor stored under an older schema version upgraded to the current one. A read: the row
     * keeps its version until the monitor is next written (docs/adr/0041-one-backoff-read-only-get.md).
     */
    async getByName(
      organizationId: string,
      query: {
        project?: string | undefined;
        environment: string;
        name: string;
        version?: 'latest' | undefined;
      },
    ): Promise<Monitor> {
      const rows = await findMonitorsByName(db, organizationId, query);
      const [row, ...others] = rows;
      if (row === undefined) {
        throw new NotFoundError(`monitor "${query.name}" not found in environment "${query.environment}"`);
      }
      if (others.length > 0) {
        const projects = rows.map((r) => r.project).join(', ');
        throw new ValidationError(
          `monitor "${query.name}" exists in several projects (${projects}): give project`,
          [{ path: 'project', message: `required: the name is used in projects ${projects}` }],
        );
      }
      if (query.version !== 'latest' || row.schema_version === MONITOR_SCHEMA_VERSION)
        return monitorRowToMonitor(row);
      // Upgraded in memory and answered; the row keeps its version until the monitor is next written (ADR 0041).
      const definition = currentDefinition(row.definition, migrations);
      return monitorRowToMonitor({ ...row, schema_version: definition.version, definition });
    },

    async remove(
      organizationId: string,
      id: string,
      options: Pick<WriteOptions, 'ifMatch'> = {},
    ): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (options.ifMatch !== undefined) {
          const current = await lockMonitor(tx, organizationId, id);
          if (current === undefined) throw new NotFoundError(`monitor ${id} not found`);
          checkPrecondition(options.ifMatch, id, monitorRowToMonitor(current));
        }
        const row = await deleteMonitorRow(tx, organizationId, id);
        if (row === undefined) throw new NotFoundError(`monitor ${id} not found`);
        const monitor = monitorRowToMonitor(row);
        for (const dependant of dependants)
          await dependant.sync(tx, { kind: 'delete', organizationId, monitor });
      });
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
