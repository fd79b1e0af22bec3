import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import type { Components } from '../server/components.js';
import { systemClock, type Clock } from '../system/clock.js';
import { createBullmqDeliveryQueue } from './bullmq-delivery-queue.js';
import { createChatChannel } from './channels/chat-channel.js';
import { emailChannel } from './channels/email-channel.js';
import type { NotificationChannel } from './channels/channel.js';
import { webhookChannel } from './channels/webhook-channel.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { createInProcessDeliveryQueue } from './in-process-delivery-queue.js';
import { createDeliveryHandler, type DeliveryAttemptOutcome } from './notification-delivery.js';
import { ruleEvaluationHook } from './rule-evaluation-hook.js';

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
}

/**
 * The notifier of a worker: `hook` evaluates rules after each run (pass it to startWorker), and the consumer
 * delivers what fired over chat, email or webhook.
 */
export function startNotifier(options: NotifierOptions): { hook: RunFinishedHook; close(): Promise<void> } {
  const { settings, log } = options;
  const deliveries =
    options.deliveries ??
    (settings.REDIS_URL === undefined
      ? createInProcessDeliveryQueue()
      : createBullmqDeliveryQueue({ redisUrl: settings.REDIS_URL }));
  const channels = [
    createChatChannel({ slackApiUrl: settings.SLACK_API_URL }),
    emailChannel,
    webhookChannel,
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
  return {
    hook: ruleEvaluationHook(deliveries),
    async close() {
      await consumer.close();
      await deliveries.close();
    },
  };
}

/**
 * Rule evaluation without delivery, for a process that records run results but does not deliver (the hub, for
 * the results of runner Jobs): what fires is enqueued on BullMQ `notifications` for the workers' notifiers.
 */
export function startRuleEvaluation(settings: Readonly<Settings>): {
  hook: RunFinishedHook;
  close(): Promise<void>;
} {
  if (settings.REDIS_URL === undefined)
    throw new Error('rule evaluation without a notifier needs REDIS_URL (the notifications queue)');
  const deliveries = createBullmqDeliveryQueue({ redisUrl: settings.REDIS_URL });
  return { hook: ruleEvaluationHook(deliveries), close: () => deliveries.close() };
}
