import type { z } from 'zod';

/** What every channel tells a person about a fired rule. */
export interface NotificationMessage {
  eventId: string;
  /**
   * `recovery` closes what a `failure` opened, a `reminder` repeats it while it holds: both go in the failure's
   * chat thread.
   */
  kind: 'failure' | 'recovery' | 'reminder';
  triggerReason: string;
  monitor: { id: string; name: string };
  location: string;
  run: {
    id: string;
    success: boolean;
    durationMs: number | null;
    errors: string[];
    completedAt: string | null;
  };
  /** The run's page in the web console (PUBLIC_URL/ui/runs/{id}), when PUBLIC_URL is set. */
  link: string | undefined;
  createdAt: string;
}

/** What a channel reports back from a successful send; `channelMeta` is kept on the event. */
export interface DeliveryReceipt {
  responseCode?: number;
  messageId?: string;
  channelMeta?: Record<string, unknown>;
}

/**
 * One way of notifying (chat, email, webhook). `configSchema` validates everything a send needs (integration
 * config, decrypted credentials, the rule's routing); a config that fails it is a mistake no retry can fix.
 */
export interface NotificationChannel<Config> {
  readonly type: 'chat' | 'email' | 'webhook';
  readonly configSchema: z.ZodType<Config>;
  send(config: Config, message: NotificationMessage): Promise<DeliveryReceipt>;
}

/** A failed send with the HTTP status the provider answered, when there was one. */
export class ChannelSendError extends Error {
  constructor(
    message: string,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export function headlineOf(message: NotificationMessage): string {
  const icon = { failure: 'Alert', recovery: 'Recovered', reminder: 'Reminder' }[message.kind];
  return `${icon}: ${message.monitor.name} (${message.location})`;
}

/** The plain-text body shared by email and anything else that shows text. */
export function plainTextOf(message: NotificationMessage): string {
  return [
    headlineOf(message),
    '',
    message.triggerReason,
    `Monitor: ${message.monitor.name} (${message.monitor.id})`,
    `Location: ${message.location}`,
    `Run: ${message.run.id} ${message.run.success ? 'passed' : 'failed'}`,
    ...(message.run.durationMs === null ? [] : [`Latency: ${message.run.durationMs} ms`]),
    ...message.run.errors.map((error) => `Error: ${error}`),
    ...(message.link === undefined ? [] : [`Details: ${message.link}`]),
  ].join('\n');
}
