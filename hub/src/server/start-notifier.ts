import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import type { Components } from './components.js';
import { systemClock, type Clock } from '../system/clock.js';
import { createChatChannel } from '../notifications/channels/chat-channel.js';
import { createEgressAgent } from '../egress/egress-connector.js';
import { createEgressPolicy, type EgressPolicy } from '../egress/egress-policy.js';
import { createEmailChannel } from '../notifications/channels/email-channel.js';
import type { NotificationChannel } from '../notifications/channels/channel.js';
import { createWebhookChannel } from '../notifications/channels/webhook-channel.js';
import type { DeliveryQueue } from '../notifications/delivery-queue.js';
import { createInProcessDeliveryQueue } from '../notifications/in-process-delivery-queue.js';
import {
  createDeliveryHandler,
  type DeliveryAttemptOutcome,
} from '../notifications/notification-delivery.js';
import { ruleEvaluationHook } from '../notifications/rule-evaluation-hook.js';
import { startNotificationOutboxSweep } from '../notifications/notification-outbox.js';
import type { Db } from '../db/database.js';

export interface NotifierOptions {
  settings: Readonly<Pick<Settings, 'REDIS_URL' | 'SLACK_API_URL' | 'PUBLIC_URL'>>;
  log: Logger;
  components: Pick<Components, 'db' | 'cipher'>;
  /** The delivery queue; BullMQ `notifications` when REDIS_URL is set, else in process. */
  deliveries?: DeliveryQueue;
  concurrency?: number;
  clock?: Clock;
  /** Told what each delivery attempt came to (the process's delivery metrics). */
  onDeliveryAttempt?: (outcome: DeliveryAttemptOutcome) => void;
  /** Told after each outbox sweep how many deliveries still wait to be handed to the queue. */
  onOutboxDepth?: (rows: number) => void;
  /** How often the outbox is swept; default OUTBOX_SWEEP_MS (tests pass a shorter one). */
  outboxSweepMs?: number;
  /**
   * What webhook and email deliveries may connect to: the global policy of the process (egressPoliciesOf);
   * default the built-in denies of a production process. Chat goes to SLACK_API_URL, which the operator set.
   */
  egress?: EgressPolicy;
}

/**
 * The notifier of a worker: `hook` evaluates rules after each run (pass it to startWorker) and hands what fired
 * to the queue after the commit; the outbox sweep hands over what such a drain left; and the consumer delivers
 * over chat, email or webhook.
 */
export async function startNotifier(
  options: NotifierOptions,
): Promise<{ hook: RunFinishedHook; close(): Promise<void> }> {
  const { settings, log } = options;
  const deliveries =
    options.deliveries ??
    (settings.REDIS_URL === undefined
      ? createInProcessDeliveryQueue()
      : await openBullmqDeliveryQueue(settings.REDIS_URL, log));
  const egress = options.egress ?? createEgressPolicy();
  const webhookAgent = createEgressAgent(egress, { connectTimeoutMs: 15_000 });
  const channels = [
    createChatChannel({ slackApiUrl: settings.SLACK_API_URL }),
    createEmailChannel({ egress }),
    createWebhookChannel({ dispatcher: webhookAgent }),
  ] as ReadonlyArray<NotificationChannel<unknown>>;
  const deliver = createDeliveryHandler({
    db: options.components.db,
    cipher: options.components.cipher,
    clock: options.clock ?? systemClock,
    channels,
    publicUrl: settings.PUBLIC_URL,
    ...(options.onDeliveryAttempt ? { onAttempt: options.onDeliveryAttempt } : {}),
  });
  const consumer = deliveries.consume(
    async (attempt) => {
      try {
        await deliver(attempt);
      } catch (error) {
        log.warn(
          { err: error, event: attempt.data.eventId, attempt: attempt.attempt },
          'notification delivery failed',
        );
        throw error;
      }
    },
    { concurrency: options.concurrency ?? 10 },
  );
  const outbox = startOutbox(options.components.db, deliveries, log, options);
  return {
    hook: outbox.hook,
    async close() {
      await outbox.sweep.stop();
      await consumer.close();
      await deliveries.close();
      await webhookAgent.close();
    },
  };
}

/** The rule hook, whose drain after each commit hands over what fired, and the sweep of what it left. */
function startOutbox(
  db: Db,
  deliveries: DeliveryQueue,
  log: Logger,
  options: Pick<NotifierOptions, 'onOutboxDepth' | 'outboxSweepMs'> = {},
) {
  const hook = ruleEvaluationHook(deliveries, {
    onDrainFailure: (error) =>
      log.warn({ err: error }, 'notification outbox not drained after commit: the sweep retries'),
  });
  const sweep = startNotificationOutboxSweep({
    db,
    deliveries,
    onError: (error) => log.warn({ err: error }, 'notification outbox sweep failed'),
    ...(options.onOutboxDepth ? { onDepth: options.onOutboxDepth } : {}),
    ...(options.outboxSweepMs === undefined ? {} : { intervalMs: options.outboxSweepMs }),
  });
  return { hook, sweep };
}

/**
 * Rule evaluation without delivery, for a process that records run results but does not deliver (the hub, for
 * the results of runner Jobs): what fires is handed to BullMQ `notifications`, for the workers' notifiers,
 * after each commit, and by the hub's own outbox sweep when that drain failed.
 */
export async function startRuleEvaluation(
  settings: Readonly<Settings>,
  components: Pick<Components, 'db'>,
  log: Logger,
): Promise<{
  hook: RunFinishedHook;
  close(): Promise<void>;
}> {
  if (settings.REDIS_URL === undefined)
    throw new Error('rule evaluation without a notifier needs REDIS_URL (the notifications queue)');
  const deliveries = await openBullmqDeliveryQueue(settings.REDIS_URL, log);
  const outbox = startOutbox(components.db, deliveries, log);
  return {
    hook: outbox.hook,
    async close() {
      await outbox.sweep.stop();
      await deliveries.close();
    },
  };
}

/** BullMQ `notifications`, its module loaded only with REDIS_URL: `meerkat dev` never loads BullMQ (ADR 0074). */
async function openBullmqDeliveryQueue(redisUrl: string, log: Logger): Promise<DeliveryQueue> {
  const { createBullmqDeliveryQueue } = await import('../notifications/bullmq-delivery-queue.js');
  return createBullmqDeliveryQueue({ redisUrl, log });
}
