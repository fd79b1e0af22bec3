import { errorMessage, errorNumber } from '../../log/error-facts.js';
import type { KnownBlock } from '@slack/web-api';
import { z } from 'zod';
import { slackApiBaseUrl } from '../../slack/slack-settings.js';
import { createSlackWebClient } from '../../slack/slack-web-client.js';
import {
  ChannelSendError,
  headlineOf,
  type NotificationChannel,
  type NotificationMessage,
} from './channel.js';

const chatChannelConfig = z.object({
  botToken: z.string().min(1),
  channel: z.string().min(1),
  /** The failure message's thread, for a recovery. */
  threadTs: z.string().optional(),
});
export type ChatChannelConfig = z.infer<typeof chatChannelConfig>;

function blocksOf(message: NotificationMessage): KnownBlock[] {
  const fields = [
    `*Monitor*\n${message.monitor.name}`,
    `*Location*\n${message.location}`,
    `*Run*\n${message.run.success ? 'passed' : 'failed'}`,
    ...(message.run.durationMs === null ? [] : [`*Latency*\n${message.run.durationMs} ms`]),
  ];
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: headlineOf(message).slice(0, 150) } },
    { type: 'section', text: { type: 'mrkdwn', text: message.triggerReason } },
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
  ];
  // An assertion error reads "expected ... actual ...": shown verbatim, it is the failing assertion.
  if (message.run.errors.length > 0) {
    const errors = message.run.errors
      .slice(0, 5)
      .map((e) => `• ${e}`)
      .join('\n');
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Errors*\n${errors}`.slice(0, 3000) } });
  }
  if (message.link !== undefined) {
    blocks.push({
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Open in Meerkat' }, url: message.link },
      ],
    });
  }
  return blocks;
}

/**
 * Slack `chat.postMessage` with the integration's bot token. The Web API client's own retries are off: the
 * delivery queue retries with backoff and records every attempt.
 */
export function createChatChannel(options: { slackApiUrl: string }): NotificationChannel<ChatChannelConfig> {
  const slackApiUrl = slackApiBaseUrl(options.slackApiUrl);
  return {
    type: 'chat',
    configSchema: chatChannelConfig,
    async send(config, message) {
      const client = await createSlackWebClient(config.botToken, {
        slackApiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        timeout: 15_000,
      });
      try {
        const answer = await client.chat.postMessage({
          channel: config.channel,
          text: `${headlineOf(message)}: ${message.triggerReason}`,
          blocks: blocksOf(message),
          ...(config.threadTs === undefined ? {} : { thread_ts: config.threadTs }),
        });
        const threadTs = config.threadTs ?? answer.ts;
        return {
          responseCode: 200,
          ...(answer.ts === undefined ? {} : { messageId: answer.ts }),
          channelMeta: { channelType: 'chat', ...(threadTs === undefined ? {} : { thread_ts: threadTs }) },
        };
      } catch (error) {
        const status = errorNumber(error, 'statusCode');
        throw new ChannelSendError(`Slack chat.postMessage failed: ${errorMessage(error)}`, status);
      }
    },
  };
}
