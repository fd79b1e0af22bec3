import type { Settings } from '../config/settings.js';
import { UnavailableError } from '../http/errors.js';

/** The Slack app's settings (docs/slack.md); absent ones switch the flow off with a clear answer. */
export interface SlackSettings {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  signingSecret?: string | undefined;
  /** The Web API base, `https://slack.com/api` unless a test points it elsewhere. */
  apiUrl: string;
  authorizeUrl: string;
  /** The hub's external address: the redirect URL Slack sends the browser back to starts with it. */
  publicUrl?: string | undefined;
}

/** SLACK_API_URL with the trailing slash the Web API client joins method names to. */
export function slackApiBaseUrl(apiUrl: string): string {
  return apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`;
}

export function slackSettingsOf(settings: Readonly<Settings>): SlackSettings {
  return {
    clientId: settings.SLACK_CLIENT_ID,
    clientSecret: settings.SLACK_CLIENT_SECRET,
    signingSecret: settings.SLACK_SIGNING_SECRET,
    apiUrl: settings.SLACK_API_URL,
    authorizeUrl: settings.SLACK_AUTHORIZE_URL,
    publicUrl: settings.PUBLIC_URL,
  };
}

export interface SlackInstallSettings {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
  authorizeUrl: string;
  redirectUri: string;
  /** PUBLIC_URL without a trailing slash; a path prefix (behind a proxy) is kept. */
  publicBaseUrl: string;
}

/** The settings an install needs, or 503 naming every missing one. */
export function requireInstallSettings(slack: SlackSettings | undefined): SlackInstallSettings {
  const clientId = slack?.clientId;
  const clientSecret = slack?.clientSecret;
  const publicUrl = slack?.publicUrl;
  if (
    slack === undefined ||
    clientId === undefined ||
    clientSecret === undefined ||
    publicUrl === undefined
  ) {
    const missing = [
      clientId === undefined ? 'SLACK_CLIENT_ID' : undefined,
      clientSecret === undefined ? 'SLACK_CLIENT_SECRET' : undefined,
      publicUrl === undefined ? 'PUBLIC_URL' : undefined,
    ].filter((name) => name !== undefined);
    throw new UnavailableError(
      `the Slack install is not configured: set ${missing.join(', ')} (docs/slack.md)`,
    );
  }
  const publicBaseUrl = publicUrl.replace(/\/+$/, '');
  return {
    clientId,
    clientSecret,
    apiUrl: slackApiBaseUrl(slack.apiUrl),
    authorizeUrl: slack.authorizeUrl,
    redirectUri: `${publicBaseUrl}/integrations/oauth/callback/chat`,
    publicBaseUrl,
  };
}

/** The bot scopes the app asks for; config/slack/manifest.yaml lists the same. */
export const slackBotScopes = ['chat:write', 'chat:write.public', 'channels:read', 'team:read'];
