import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { ChannelSendError, type NotificationChannel, type NotificationMessage } from './channel.js';

const webhookChannelConfig = z.object({
  url: z.url(),
  signingSecret: z.string().startsWith('whsec_'),
});
export type WebhookChannelConfig = z.infer<typeof webhookChannelConfig>;

/** The JSON body every webhook receives (docs/notifications.md); `version` changes on any breaking change. */
function webhookPayloadOf(message: NotificationMessage) {
  return {
    version: '1',
    type: { failure: 'monitor.alert', recovery: 'monitor.recovered', reminder: 'monitor.reminder' }[
      message.kind
    ],
    eventId: message.eventId,
    createdAt: message.createdAt,
    triggerReason: message.triggerReason,
    monitor: message.monitor,
    location: message.location,
    run: message.run,
    link: message.link ?? null,
  };
}

const SEND_TIMEOUT_MS = 15_000;

/**
 * POSTs the payload signed per Standard Webhooks; any non-2xx answer is a failed attempt. `dispatcher` is an Agent
 * under the egress policy (createEgressAgent). Redirects are not followed (as Standard Webhooks senders do): a
 * 3xx is a failed attempt, so a receiver cannot bounce the signed payload to an address the policy would refuse.
 */
export function createWebhookChannel(options: {
  dispatcher: Dispatcher;
}): NotificationChannel<WebhookChannelConfig> {
  return {
    type: 'webhook',
    configSchema: webhookChannelConfig,
    async send(config, message) {
      const body = JSON.stringify(webhookPayloadOf(message));
      // One id per attempt lets the receiver tell retries apart; eventId in the body ties them together.
      const id = `msg_${randomUUID()}`;
      const timestamp = new Date();
      const signature = new Webhook(config.signingSecret).sign(id, timestamp, body);
      const response = await request(config.url, {
        dispatcher: options.dispatcher,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await response.body.dump();
      const status = response.statusCode;
      if (status >= 300 && status < 400)
        throw new ChannelSendError(`webhook answered HTTP ${status}; redirects are not followed`, status);
      if (status >= 400) throw new ChannelSendError(`webhook answered HTTP ${status}`, status);
      return { responseCode: status, messageId: id, channelMeta: { channelType: 'webhook' } };
    },
  };
}
