import type { Logger } from 'pino';
import { z } from 'zod';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { ValidationError } from '../http/errors.js';
import { openCredentials } from '../crypto/row-credentials.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import type { Clock } from '../system/clock.js';
import { appHomeView } from './app-home-view.js';
import {
  disableChatIntegrationsOfTeam,
  findEnabledChatIntegrationsOfTeam,
  recordSlackEvent,
} from './slack-installation.repository.js';
import { slackApiBaseUrl, type SlackSettings } from './slack-settings.js';
import { createSlackWebClient } from './slack-web-client.js';

// Only the fields acted on are read; Slack adds fields freely, so unknown ones are allowed.
const envelopeSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string().max(512) }),
  z.looseObject({
    type: z.literal('event_callback'),
    event_id: z.string().min(1).max(128),
    team_id: z.string().min(1).max(64),
    event: z.looseObject({
      type: z.string(),
      user: z.string().optional(),
      tab: z.string().optional(),
      tokens: z.looseObject({ bot: z.array(z.string()).optional() }).optional(),
    }),
  }),
]);
type EventCallback = Extract<z.infer<typeof envelopeSchema>, { type: 'event_callback' }>;

export interface SlackEventAnswer {
  body: Record<string, unknown>;
  /** Slow work (a Web API call) that runs once the answer is sent, so Slack hears back within 3 seconds. */
  afterResponse?: () => Promise<void>;
}

export interface SlackEventsDeps {
  db: Db;
  cipher: CredentialCipher;
  clock: Clock;
  slack: SlackSettings;
  metrics: MetricsService;
  log: Logger;
  /** Throws RateLimitedError when the workspace sent too many events; called before an event costs a write. */
  admitTeam?: (teamId: string) => void;
}

export function createSlackEventsService({
  db,
  cipher,
  clock,
  slack,
  metrics,
  log,
  admitTeam,
}: SlackEventsDeps) {
  async function publishHome(teamId: string, userId: string): Promise<void> {
    const [integration] = await findEnabledChatIntegrationsOfTeam(db, teamId);
    if (integration?.credentials_encrypted == null) return;
    const { botToken } = openCredentials(
      cipher,
      { table: 'integrations', organizationId: integration.organization_id, id: integration.id },
      integration.credentials_encrypted,
    ) as { botToken: string };
    const summary = await metrics.summary(integration.organization_id, {
      period: '24h',
      environment: integration.environment,
    });
    const client = await createSlackWebClient(botToken, {
      slackApiUrl: slackApiBaseUrl(slack.apiUrl),
      retryConfig: { retries: 1 },
      timeout: 10_000,
    });
    await client.views.publish({
      user_id: userId,
      view: appHomeView(summary, integration.environment, slack.publicUrl),
    });
  }

  /** Applies one event exactly once: the event id is recorded in the same transaction as its effect. */
  async function applyEvent(envelope: EventCallback): Promise<SlackEventAnswer> {
    const { event, team_id: teamId } = envelope;
    admitTeam?.(teamId);
    const now = clock.now();
    let homeFor: string | undefined;
    await db.transaction().execute(async (trx) => {
      const fresh = await recordSlackEvent(trx, {
        eventId: envelope.event_id,
        teamId,
        type: event.type,
        receivedAt: now,
      });
      if (!fresh) return;
      const revokesBot = event.type === 'tokens_revoked' && (event.tokens?.bot?.length ?? 0) > 0;
      if (event.type === 'app_uninstalled' || revokesBot) {
        const disabled = await disableChatIntegrationsOfTeam(trx, teamId, now);
        log.info(
          { teamId, event: event.type, disabled },
          'Slack workspace revoked access; chat integrations disabled',
        );
      }
      if (event.type === 'app_home_opened' && event.tab !== 'messages' && event.user !== undefined) {
        homeFor = event.user;
      }
    });
    const user = homeFor;
    return {
      body: { ok: true },
      ...(user === undefined ? {} : { afterResponse: () => publishHome(teamId, user) }),
    };
  }

  return {
    /** `rawBody` has already passed the signature check. */
    async receive(rawBody: Buffer): Promise<SlackEventAnswer> {
      let json: unknown;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new ValidationError('request body is not valid JSON');
      }
      const parsed = envelopeSchema.safeParse(json);
      // Event types the app is not subscribed to are acknowledged, so Slack does not retry them.
      if (!parsed.success) return { body: { ok: true } };
      if (parsed.data.type === 'url_verification') return { body: { challenge: parsed.data.challenge } };
      return applyEvent(parsed.data);
    },
  };
}

export type SlackEventsService = ReturnType<typeof createSlackEventsService>;
