import { findConnection } from '../connections/connection.repository.js';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { jsonColumn, type JsonText } from '../db/json-column.js';
import { createEgressPolicy, type EgressPolicy } from '../egress/egress-policy.js';
import { egressIssueOfUrl } from '../egress/egress-validation.js';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import type { LimitOffset } from '../http/paging.js';
import type { Clock } from '../system/clock.js';
import { sealCredentials } from '../crypto/row-credentials.js';
import {
  deleteIntegration,
  findIntegration,
  insertIntegration,
  listIntegrations,
  updateIntegration,
  type IntegrationRow,
} from './integration.repository.js';
import type {
  CreateIntegration,
  Integration,
  IntegrationConfig,
  PatchIntegration,
  WritableIntegrationConfig,
} from './integration.schema.js';

export interface IntegrationServiceDeps {
  db: Db;
  cipher: CredentialCipher;
  clock: Clock;
  /** What deliveries may connect to: a webhook URL it refuses is a 400. Default the built-in denies. */
  egress?: EgressPolicy;
}

function integrationRowToIntegration(row: IntegrationRow): Integration {
  return {
    id: row.id,
    organizationId: row.organization_id,
    category: 'notifications',
    provider: row.provider,
    name: row.name,
    hasCredentials: row.credentials_encrypted !== null,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    connectionId: row.connection_id,
    config: { ...row.config, providerType: row.provider_type } as IntegrationConfig,
    environment: row.environment,
  };
}

function withoutProviderType(config: WritableIntegrationConfig): JsonText<Record<string, unknown>> {
  const { providerType: _type, ...rest } = config;
  return jsonColumn<Record<string, unknown>>(rest);
}

export function createIntegrationService({ db, cipher, clock, ...deps }: IntegrationServiceDeps) {
  const egress = deps.egress ?? createEgressPolicy();
  function checkEgress(config: WritableIntegrationConfig | undefined): void {
    if (config?.providerType !== 'webhook') return;
    const issue = egressIssueOfUrl(egress, config.url, 'config.url');
    if (issue !== undefined)
      throw new ValidationError(`invalid body: ${issue.path}: ${issue.message}`, [issue]);
  }

  /** An email integration sends through an smtp connection of the same organization; a webhook has none. */
  async function checkConnection(organizationId: string, providerType: string, connectionId: string | null) {
    if (providerType === 'webhook') {
      if (connectionId !== null)
        throw new ValidationError('invalid body: connectionId: a webhook integration takes no connection', [
          { path: 'connectionId', message: 'a webhook integration takes no connection' },
        ]);
      return;
    }
    if (providerType !== 'email') return;
    const connection =
      connectionId === null ? undefined : await findConnection(db, organizationId, connectionId);
    if (connection?.auth_method !== 'smtp') {
      const message = `an email integration needs an smtp connection (POST /connections)`;
      throw new ValidationError(`invalid body: connectionId: ${message}`, [
        { path: 'connectionId', message },
      ]);
    }
  }

  function nameConflict(error: unknown, name: string | undefined, environment: string | undefined): never {
    if (hasSqlState(error, SqlState.uniqueViolation)) {
      throw new ConflictError(
        `an integration named "${name}" already exists in environment "${environment}"`,
        [{ path: 'name', message: 'already used in this environment' }],
      );
    }
    throw error;
  }

  async function get(organizationId: string, id: string): Promise<IntegrationRow> {
    const row = await findIntegration(db, organizationId, id);
    if (row === undefined) throw new NotFoundError(`integration ${id} not found`);
    return row;
  }

  return {
    async list(organizationId: string, page: LimitOffset) {
      const { rows, total } = await listIntegrations(db, organizationId, page);
      return { data: rows.map(integrationRowToIntegration), total };
    },

    async get(organizationId: string, id: string): Promise<Integration> {
      return integrationRowToIntegration(await get(organizationId, id));
    },

    async create(organizationId: string, input: CreateIntegration): Promise<Integration> {
      const providerType = input.config.providerType;
      checkEgress(input.config);
      await checkConnection(organizationId, providerType, input.connectionId ?? null);
      if (providerType === 'webhook' && input.credentials === undefined) {
        const message = 'a webhook integration needs credentials.signingSecret (whsec_...)';
        throw new ValidationError(`invalid body: credentials: ${message}`, [
          { path: 'credentials', message },
        ]);
      }
      const id = newId('int');
      const now = clock.now();
      try {
        const row = await insertIntegration(db, {
          organization_id: organizationId,
          id,
          environment: input.environment,
          name: input.name,
          category: 'notifications',
          provider: 'cloud',
          provider_type: providerType,
          config: withoutProviderType(input.config),
          credentials_encrypted:
            input.credentials === undefined
              ? null
              : sealCredentials(cipher, { table: 'integrations', organizationId, id }, input.credentials),
          connection_id: input.connectionId ?? null,
          enabled: input.enabled,
          created_at: now,
          updated_at: now,
        });
        return integrationRowToIntegration(row);
      } catch (error) {
        return nameConflict(error, input.name, input.environment);
      }
    },

    async update(organizationId: string, id: string, patch: PatchIntegration): Promise<Integration> {
      const existing = await get(organizationId, id);
      if (patch.config !== undefined && patch.config.providerType !== existing.provider_type) {
        const message = `providerType cannot change (the integration is "${existing.provider_type}")`;
        throw new ValidationError(`invalid body: config.providerType: ${message}`, [
          { path: 'config.providerType', message },
        ]);
      }
      checkEgress(patch.config);
      if (patch.connectionId !== undefined)
        await checkConnection(organizationId, existing.provider_type, patch.connectionId);
      try {
        const row = await updateIntegration(db, organizationId, id, {
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.environment === undefined ? {} : { environment: patch.environment }),
          ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
          ...(patch.connectionId === undefined ? {} : { connection_id: patch.connectionId }),
          ...(patch.config === undefined ? {} : { config: withoutProviderType(patch.config) }),
          updated_at: clock.now(),
        });
        if (row === undefined) throw new NotFoundError(`integration ${id} not found`);
        return integrationRowToIntegration(row);
      } catch (error) {
        return nameConflict(error, patch.name ?? existing.name, patch.environment ?? existing.environment);
      }
    },

    async remove(organizationId: string, id: string): Promise<void> {
      try {
        if (!(await deleteIntegration(db, organizationId, id)))
          throw new NotFoundError(`integration ${id} not found`);
      } catch (error) {
        if (hasSqlState(error, SqlState.foreignKeyViolation)) {
          throw new ConflictError(
            `integration ${id} is used by notification rules; remove it from the monitors' notifications first`,
          );
        }
        throw error;
      }
    },
  };
}

export type IntegrationService = ReturnType<typeof createIntegrationService>;
