import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ConnectionRow } from '../connections/connection.repository.js';
import type { IntegrationRow } from '../integrations/integration.repository.js';

/** The chat integration of a workspace in one organization and environment, if it was installed before. */
export async function findChatIntegrationOfTeam(
  db: Executor,
  organizationId: string,
  environment: string,
  teamId: string,
): Promise<IntegrationRow | undefined> {
  return db
    .selectFrom('integrations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('environment', '=', environment)
    .where('provider_type', '=', 'chat')
    .where(sql<string>`config->>'teamId'`, '=', teamId)
    .orderBy('created_at')
    .executeTakeFirst();
}

export async function findOAuthConnectionOfTeam(
  db: Executor,
  organizationId: string,
  teamId: string,
): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('auth_method', '=', 'oauth')
    .where(sql<string>`metadata->>'teamId'`, '=', teamId)
    .orderBy('created_at')
    .executeTakeFirst();
}

/** Every enabled chat integration installed in a workspace, across organizations (the webhook knows only the team). */
export async function findEnabledChatIntegrationsOfTeam(
  db: Executor,
  teamId: string,
): Promise<IntegrationRow[]> {
  return db
    .selectFrom('integrations')
    .selectAll()
    .where('provider_type', '=', 'chat')
    .where('enabled', '=', true)
    .where('credentials_encrypted', 'is not', null)
    .where(sql<string>`config->>'teamId'`, '=', teamId)
    .orderBy('organization_id')
    .orderBy('created_at')
    .execute();
}

/** The workspace removed the app or its token: its integrations stop and forget the token they can no longer use. */
export async function disableChatIntegrationsOfTeam(
  db: Executor,
  teamId: string,
  now: Date,
): Promise<number> {
  const disabled = await db
    .updateTable('integrations')
    .set({ enabled: false, credentials_encrypted: null, updated_at: now })
    .where('provider_type', '=', 'chat')
    .where(sql<string>`config->>'teamId'`, '=', teamId)
    .executeTakeFirst();
  await db
    .updateTable('connections')
    .set({ credentials_encrypted: null, updated_at: now })
    .where('auth_method', '=', 'oauth')
    .where(sql<string>`metadata->>'teamId'`, '=', teamId)
    .execute();
  return Number(disabled.numUpdatedRows);
}

/** Records an Events API delivery; false when its event_id was processed already. */
export async function recordSlackEvent(
  db: Executor,
  event: { eventId: string; teamId: string | null; type: string; receivedAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('slack_events')
    .values({
      event_id: event.eventId,
      team_id: event.teamId,
      event_type: event.type,
      received_at: event.receivedAt,
    })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return inserted !== undefined;
}
