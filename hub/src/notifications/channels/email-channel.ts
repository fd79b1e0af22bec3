import { z } from 'zod';
import { smtpCredentialsSchema } from '../../connections/connection.schema.js';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import { egressSmtpSocket } from '../../egress/egress-socket.js';
import {
  headlineOf,
  plainTextOf,
  type DeliveryReceipt,
  type NotificationChannel,
  type NotificationMessage,
} from './channel.js';
import { escapeHtml } from '../../http/html-escape.js';

const emailChannelConfig = z.object({
  fromAddress: z.email(),
  fromName: z.string().optional(),
  replyTo: z.email().optional(),
  toAddresses: z.array(z.email()).min(1),
  smtp: smtpCredentialsSchema,
});
export type EmailChannelConfig = z.infer<typeof emailChannelConfig>;

function htmlOf(message: NotificationMessage): string {
  const rows: Array<[string, string]> = [
    ['Monitor', message.monitor.name],
    ['Location', message.location],
    ['Run', `${message.run.id} (${message.run.success ? 'passed' : 'failed'})`],
    ...(message.run.durationMs === null
      ? []
      : [['Latency', `${message.run.durationMs} ms`] as [string, string]]),
    ...message.run.errors.map((error): [string, string] => ['Error', error]),
  ];
  const table = rows.map(([k, v]) => `<tr><th align="left">${k}</th><td>${escapeHtml(v)}</td></tr>`).join('');
  const link =
    message.link === undefined ? '' : `<p><a href="${escapeHtml(message.link)}">Open in Meerkat</a></p>`;
  return `<h2>${escapeHtml(headlineOf(message))}</h2><p>${escapeHtml(message.triggerReason)}</p><table>${table}</table>${link}`;
}

const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Email over the SMTP server of the integration's connection, with HTML and plain-text parts. The connection to
 * the server is opened under the egress policy (egressSmtpSocket), as a webhook's is.
 */
export function createEmailChannel(options: {
  egress: EgressPolicy;
}): NotificationChannel<EmailChannelConfig> {
  const getSocket = egressSmtpSocket(options.egress, CONNECT_TIMEOUT_MS);
  return {
    type: 'email',
    configSchema: emailChannelConfig,
    send: (config, message) => sendEmail(config, message, getSocket),
  };
}

async function sendEmail(
  config: EmailChannelConfig,
  message: NotificationMessage,
  getSocket: ReturnType<typeof egressSmtpSocket>,
): Promise<DeliveryReceipt> {
  const { smtp } = config;
  // Loaded on the first email: a process that sends none never holds nodemailer (docs/benchmarks.md "Memory").
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure ?? false,
    getSocket,
    ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
  });
  try {
    const info = await transport.sendMail({
      from:
        config.fromName === undefined
          ? config.fromAddress
          : { name: config.fromName, address: config.fromAddress },
      to: config.toAddresses,
      ...(config.replyTo === undefined ? {} : { replyTo: config.replyTo }),
      subject: `[Meerkat] ${headlineOf(message)}: ${message.triggerReason}`,
      text: plainTextOf(message),
      html: htmlOf(message),
      headers: { 'X-Meerkat-Event-Id': message.eventId },
    });
    return { messageId: info.messageId, channelMeta: { channelType: 'email' } };
  } finally {
    transport.close();
  }
}
