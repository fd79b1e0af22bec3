import type { SlackInstallSettings } from './slack-settings.js';
import { createSlackWebClient } from './slack-web-client.js';

/** What an install brings back from `oauth.v2.access`. */
export interface SlackInstallation {
  botToken: string;
  scopes: string[];
  team: { id: string; name?: string | undefined };
  botUserId?: string | undefined;
  appId?: string | undefined;
}

export class SlackTokenExchangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Exchanges the callback's code for the bot token. One attempt: a code is single-use, a retry cannot help. */
export async function exchangeSlackCode(
  settings: SlackInstallSettings,
  code: string,
): Promise<SlackInstallation> {
  const client = await createSlackWebClient(undefined, {
    slackApiUrl: settings.apiUrl,
    retryConfig: { retries: 0 },
    timeout: 15_000,
  });
  let answer: Awaited<ReturnType<typeof client.oauth.v2.access>>;
  try {
    answer = await client.oauth.v2.access({
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      code,
      redirect_uri: settings.redirectUri,
    });
  } catch (error) {
    // A platform error carries Slack's code (`code_already_used`, `invalid_code`); never the request itself.
    const slackCode = (error as { data?: { error?: string } }).data?.error;
    throw new SlackTokenExchangeError(
      slackCode === undefined
        ? 'Slack could not be reached to exchange the code'
        : `Slack refused the code: ${slackCode}`,
    );
  }
  if (answer.token_type !== 'bot' || answer.access_token === undefined || answer.team?.id === undefined) {
    throw new SlackTokenExchangeError('Slack did not return a bot token for a workspace');
  }
  return {
    botToken: answer.access_token,
    scopes: (answer.scope ?? '').split(',').filter((scope) => scope !== ''),
    team: { id: answer.team.id, name: answer.team.name },
    botUserId: answer.bot_user_id,
    appId: answer.app_id,
  };
}
