import { errorMessage } from '../log/error-facts.js';
import { findConnection } from '../connections/connection.repository.js';
import { consoleMonitorPath, consoleRunPath } from '../contract/console-paths.js';
import { openCredentials } from '../crypto/row-credentials.js';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import type { NotifiedChannel } from '../db/tables.js';
import { findIntegration, type IntegrationRow } from '../integrations/integration.repository.js';
import type { Clock } from '../system/clock.js';
import { ChannelSendError, type NotificationChannel, type NotificationMessage } from './channels/channel.js';
import type { DeliveryAttempt } from './delivery-queue.js';
import { findEvent, findFailureThread, type NotificationEventRow } from './notification-event.repository.js';
import { findMessageSubject } from './notification-message.repository.js';
import { awaitRuleEvaluation } from './notification-rule.repository.js';
import { recordDeliveryOutcome } from './notification.service.js';

export interface DeliveryDeps {
  db: Db;
  cipher: CredentialCipher;
  clock: Clock;
  channels: ReadonlyArray<NotificationChannel<unknown>>;
  /** PUBLIC_URL, for the link in a message. */
  publicUrl: string | undefined;
  /** Told what each attempt came to once its outcome is recorded (the delivery metrics). */
  onAttempt?: (outcome: DeliveryAttemptOutcome) => void;
}

/**
 * What one delivery attempt came to. Every delivery ends once in `success`, `failure` (its last attempt failed,
 * or the integration is not usable) or `skipped` (the integration is disabled or gone); `retry` is an attempt
 * that failed with another one to come. Bounded labels only: never a URL, channel id or error text.
 */
export interface DeliveryAttemptOutcome {
  channel: 'chat' | 'email' | 'webhook' | 'unknown';
  result: 'success' | 'retry' | 'failure' | 'skipped';
  /** How long the channel's send took, when it was called. */
  sendSeconds?: number;
}

function channelLabelOf(type: string | undefined): DeliveryAttemptOutcome['channel'] {
  return type === 'chat' || type === 'email' || type === 'webhook' ? type : 'unknown';
}

/** The console page of the run that fired the event (docs/console.md), or of its monitor when no run did. */
function consoleLinkOf(publicUrl: string, event: NotificationEventRow): string {
  const base = publicUrl.replace(/\/+$/, '');
  return event.run_id === null
    ? `${base}${consoleMonitorPath(event.monitor_id)}`
    : `${base}${consoleRunPath(event.run_id)}`;
}

async function messageOf(deps: DeliveryDeps, event: NotificationEventRow, target: NotifiedChannel) {
  const org = event.organization_id;
  const { monitor, run } = await findMessageSubject(deps.db, org, event.monitor_id, event.run_id);
  const message: NotificationMessage = {
    eventId: event.id,
    kind: target.kind === 'recovery' || target.kind === 'reminder' ? target.kind : 'failure',
    triggerReason: event.trigger_reason,
    monitor: { id: event.monitor_id, name: monitor?.name ?? event.monitor_id },
    location: target.location,
    run: {
      id: event.run_id ?? '',
      success: run?.success === true,
      durationMs: run?.duration_ms ?? null,
      errors: run?.errors ?? [],
      completedAt: run?.completed_at?.toISOString() ?? null,
    },
    link: deps.publicUrl === undefined ? undefined : consoleLinkOf(deps.publicUrl, event),
    createdAt: event.created_at.toISOString(),
  };
  return message;
}

/** Everything a channel's config schema asks for: integration config, decrypted credentials and routing. */
async function rawChannelConfig(
  deps: DeliveryDeps,
  integration: IntegrationRow,
  target: NotifiedChannel,
  event: NotificationEventRow,
  channelKey: string,
) {
  const org = integration.organization_id;
  const credentials =
    integration.credentials_encrypted === null
      ? {}
      : openCredentials(
          deps.cipher,
          { table: 'integrations', organizationId: org, id: integration.id },
          integration.credentials_encrypted,
        );
  if (integration.provider_type === 'email') {
    const connection =
      integration.connection_id === null
        ? undefined
        : await findConnection(deps.db, org, integration.connection_id);
    const smtp =
      connection?.credentials_encrypted == null
        ? {}
        : openCredentials(
            deps.cipher,
            { table: 'connections', organizationId: org, id: connection.id },
            connection.credentials_encrypted,
          );
    return { ...integration.config, toAddresses: target.toAddresses, smtp };
  }
  if (integration.provider_type === 'chat') {
    const threadTs =
      target.kind === 'recovery' || target.kind === 'reminder'
        ? await findFailureThread(deps.db, org, event, channelKey, target.location)
        : undefined;
    return {
      botToken: credentials.botToken,
      channel: target.channel,
      ...(threadTs === undefined ? {} : { threadTs }),
    };
  }
  return { ...integration.config, ...credentials };
}

/**
 * Delivers one event to one channel and records the outcome through the PATCH /notifications/events path.
 * Idempotent: a channel already delivered, skipped or failed is left alone. A failed attempt is recorded and
 * rethrown for the queue to retry, except the last one and configuration mistakes, which end `failed`.
 */
export function createDeliveryHandler(deps: DeliveryDeps) {
  return async function deliverNotification({ data, attempt, lastAttempt }: DeliveryAttempt): Promise<void> {
    const { organizationId: org, eventId, channelKey } = data;
    if (data.ruleId !== null) await awaitRuleEvaluation(deps.db, org, data.ruleId);
    const event = await findEvent(deps.db, org, eventId);
    if (event === undefined) return; // its transaction rolled back, or its monitor was deleted
    const current = event.delivery_status[channelKey]?.status;
    if (current !== undefined && current !== 'pending') return;
    const target = event.channels_notified[channelKey];
    const report = (status: Parameters<typeof recordDeliveryOutcome>[4]['status']) =>
      recordDeliveryOutcome(deps.db, deps.clock, org, eventId, {
        channelKey,
        status: { attempt, ...status },
      });
    const integration = target && (await findIntegration(deps.db, org, target.integrationId));
    let sendSeconds: number | undefined;
    const observe = (result: DeliveryAttemptOutcome['result']) =>
      deps.onAttempt?.({
        channel: channelLabelOf(integration?.provider_type ?? channelKey.split(':')[0]),
        result,
        ...(sendSeconds === undefined ? {} : { sendSeconds }),
      });
    if (target === undefined || integration === undefined || !integration.enabled) {
      await report({
        status: 'skipped',
        error: integration ? 'the integration is disabled' : 'the integration no longer exists',
      });
      observe('skipped');
      return;
    }
    const channel = deps.channels.find((c) => c.type === integration.provider_type);
    const config = channel?.configSchema.safeParse(
      await rawChannelConfig(deps, integration, target, event, channelKey),
    );
    if (channel === undefined || config === undefined || !config.success) {
      const why = config?.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      await report({
        status: 'failed',
        error: `integration ${integration.name} is not usable: ${why ?? 'no channel'}`,
      });
      observe('failure');
      return;
    }
    const send = async (message: NotificationMessage) => {
      const started = performance.now();
      try {
        return await channel.send(config.data, message);
      } finally {
        sendSeconds = (performance.now() - started) / 1000;
      }
    };
    try {
      const receipt = await send(await messageOf(deps, event, target));
      await report({ status: 'delivered', ...receipt });
      observe('success');
    } catch (error) {
      const responseCode = error instanceof ChannelSendError ? error.responseCode : undefined;
      await report({
        status: lastAttempt ? 'failed' : 'pending',
        error: errorMessage(error),
        ...(responseCode === undefined ? {} : { responseCode }),
      });
      observe(lastAttempt ? 'failure' : 'retry');
      if (!lastAttempt) throw error;
    }
  };
}
