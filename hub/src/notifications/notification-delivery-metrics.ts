import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryAttemptOutcome } from './notification-delivery.js';
import { METRIC_PREFIX } from '../system/metrics-registry.js';

// Seconds, from 50 ms to 30 s (a webhook send times out after 15 s; SMTP has no shorter bound of its own).
const SEND_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/**
 * Counts the notification delivery attempts this process made, by channel type and result, and times the
 * channel sends; `sum()` over workers is right. An attempt is counted once its outcome is recorded on the event:
 * a worker that dies after sending but before recording leaves that send uncounted, and the redelivered job
 * sends again (delivery is at least once).
 */
export function createNotificationDeliveryMetrics(
  registry: Registry,
): (outcome: DeliveryAttemptOutcome) => void {
  const deliveries = new Counter({
    name: `${METRIC_PREFIX}notification_deliveries_total`,
    help: 'Notification delivery attempts by this process, by channel and result (success, retry, failure, skipped).',
    labelNames: ['channel', 'result'],
    registers: [registry],
  });
  const sends = new Histogram({
    name: `${METRIC_PREFIX}notification_delivery_duration_seconds`,
    help: 'Duration of the channel sends (Slack API call, SMTP session, webhook POST) made by this process.',
    labelNames: ['channel'],
    buckets: SEND_BUCKETS,
    registers: [registry],
  });
  // Every known (channel, result) pair starts at 0, so increase() sees the first failure of a fresh worker.
  for (const channel of ['chat', 'email', 'webhook'])
    for (const result of ['success', 'retry', 'failure', 'skipped']) deliveries.inc({ channel, result }, 0);
  return ({ channel, result, sendSeconds }) => {
    deliveries.inc({ channel, result });
    if (sendSeconds !== undefined) sends.observe({ channel }, sendSeconds);
  };
}

/**
 * The notification outbox rows waiting to be handed to the delivery queue, as the last sweep of this process
 * counted them (docs/adr/0051-notification-outbox.md). The table is shared: every worker reports the same rows,
 * so use max() over workers, not sum(). Above 0 for more than a sweep or two means the queue (Redis) refuses
 * them.
 */
export function createNotificationOutboxDepthMetric(registry: Registry): (rows: number) => void {
  const depth = new Gauge({
    name: `${METRIC_PREFIX}notification_outbox_depth`,
    help: 'Notification deliveries recorded but not yet handed to the delivery queue, at the last outbox sweep.',
    registers: [registry],
  });
  return (rows) => depth.set(rows);
}
