import { insertConnection, updateConnection } from '../connections/connection.repository.js';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { insertIntegration, updateIntegration } from '../integrations/integration.repository.js';
import { sealCredentials } from '../crypto/row-credentials.js';
import type { OAuthTransactionRow } from './oauth-transaction.repository.js';
import { findChatIntegrationOfTeam, findOAuthConnectionOfTeam } from './slack-installation.repository.js';
import type { SlackInstallation } from './token-exchange.js';
import { jsonColumn } from '../db/json-column.js';

export class InstallationConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Creates or updates, in one database transaction, the workspace's oauth connection and the chat integration
 * of the transaction's organization and environment. Reinstalling into the same workspace updates the same
 * integration (same id, so notification rules keep pointing at it) and re-enables it with the new token.
 */
export async function storeSlackInstallation(
  db: Db,
  cipher: CredentialCipher,
  transaction: OAuthTransactionRow,
  installation: SlackInstallation,
  now: Date,
): Promise<string> {
  const organizationId = transaction.organization_id;
  const metadata = jsonColumn<Record<string, unknown>>({
    teamId: installation.team.id,
    ...(installation.team.name === undefined ? {} : { teamName: installation.team.name }),
    ...(installation.botUserId === undefined ? {} : { botUserId: installation.botUserId }),
    ...(installation.appId === undefined ? {} : { appId: installation.appId }),
  });
  try {
    return await db.transaction().execute(async (trx) => {
      const existingConnection = await findOAuthConnectionOfTeam(trx, organizationId, installation.team.id);
      const connectionId = existingConnection?.id ?? newId('con');
      const connectionFields = {
        oauth_connected_at: now,
        oauth_scopes: jsonColumn(installation.scopes),
        metadata,
        updated_at: now,
      };
      if (existingConnection === undefined) {
        await insertConnection(trx, {
          organization_id: organizationId,
          id: connectionId,
          provider: 'cloud',
          auth_method: 'oauth',
          credentials_encrypted: null,
          created_at: now,
          ...connectionFields,
        });
      } else {
        await updateConnection(trx, organizationId, connectionId, connectionFields);
      }

      const existing = await findChatIntegrationOfTeam(
        trx,
        organizationId,
        transaction.environment,
        installation.team.id,
      );
      const integrationId = existing?.id ?? newId('int');
      const credentials = sealCredentials(
        cipher,
        { table: 'integrations', organizationId, id: integrationId },
        { botToken: installation.botToken },
      );
      const config = jsonColumn<Record<string, unknown>>({
        ...(existing?.config ?? {}),
        teamId: installation.team.id,
        ...(installation.team.name === undefined ? {} : { teamName: installation.team.name }),
        ...(transaction.channel === null ? {} : { channel: transaction.channel }),
      });
      if (existing === undefined) {
        await insertIntegration(trx, {
          organization_id: organizationId,
          id: integrationId,
          environment: transaction.environment,
          name: transaction.integration_name ?? `slack-${installation.team.id}`,
          category: 'notifications',
          provider: 'cloud',
          provider_type: 'chat',
          config,
          credentials_encrypted: credentials,
          connection_id: connectionId,
          enabled: true,
          created_at: now,
          updated_at: now,
        });
      } else {
        await updateIntegration(trx, organizationId, integrationId, {
          config,
          credentials_encrypted: credentials,
          connection_id: connectionId,
          enabled: true,
          updated_at: now,
        });
      }
      return integrationId;
    });
  } catch (error) {
    if (hasSqlState(error, SqlState.uniqueViolation)) {
      throw new InstallationConflictError(
        `an integration named "${transaction.integration_name}" already exists in environment "${transaction.environment}"`,
      );
    }
    throw error;
  }
}
