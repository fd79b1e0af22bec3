import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { createEgressPolicy, type EgressPolicy } from '../egress/egress-policy.js';
import { egressIssueOfHost } from '../egress/egress-validation.js';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import type { LimitOffset } from '../http/paging.js';
import type { Clock } from '../system/clock.js';
import { sealCredentials } from '../crypto/row-credentials.js';
import {
  deleteConnection,
  findConnection,
  insertConnection,
  listConnections,
  type ConnectionRow,
} from './connection.repository.js';
import type { Connection, CreateConnection } from './connection.schema.js';
import { jsonColumn } from '../db/json-column.js';

export interface ConnectionServiceDeps {
  db: Db;
  cipher: CredentialCipher;
  clock: Clock;
  /** What deliveries may connect to: an SMTP host it refuses is a 400. Default the built-in denies. */
  egress?: EgressPolicy;
}

function connectionRowToConnection(row: ConnectionRow): Connection {
  return {
    id: row.id,
    organizationId: row.organization_id,
    provider: row.provider,
    authMethod: row.auth_method as Connection['authMethod'],
    hasCredentials: row.credentials_encrypted !== null,
    oauthConnectedAt: row.oauth_connected_at?.toISOString() ?? null,
    oauthScopes: row.oauth_scopes,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createConnectionService({ db, cipher, clock, ...deps }: ConnectionServiceDeps) {
  const egress = deps.egress ?? createEgressPolicy();
  return {
    async list(organizationId: string, page: LimitOffset) {
      const { rows, total } = await listConnections(db, organizationId, page);
      return { data: rows.map(connectionRowToConnection), total };
    },

    async get(organizationId: string, id: string): Promise<Connection> {
      const row = await findConnection(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`connection ${id} not found`);
      return connectionRowToConnection(row);
    },

    async create(organizationId: string, input: CreateConnection): Promise<Connection> {
      const { host, port } = input.credentials;
      const issue = egressIssueOfHost(egress, host, port, 'credentials.host');
      if (issue !== undefined)
        throw new ValidationError(`invalid body: ${issue.path}: ${issue.message}`, [issue]);
      const id = newId('con');
      const now = clock.now();
      const row = await insertConnection(db, {
        organization_id: organizationId,
        id,
        provider: input.provider,
        auth_method: input.authMethod,
        credentials_encrypted: sealCredentials(
          cipher,
          { table: 'connections', organizationId, id },
          input.credentials,
        ),
        oauth_scopes: jsonColumn([]),
        metadata: jsonColumn(input.metadata ?? {}),
        created_at: now,
        updated_at: now,
      });
      return connectionRowToConnection(row);
    },

    async remove(organizationId: string, id: string): Promise<void> {
      try {
        if (!(await deleteConnection(db, organizationId, id)))
          throw new NotFoundError(`connection ${id} not found`);
      } catch (error) {
        if (hasSqlState(error, SqlState.foreignKeyViolation)) {
          throw new ConflictError(`connection ${id} is used by an integration; delete the integration first`);
        }
        throw error;
      }
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
