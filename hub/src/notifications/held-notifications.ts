import type { DbTransaction } from '../db/database.js';
import type { HeldBy } from '../db/tables.js';
import type { DeliveryJobData } from './delivery-queue.js';
import { findEvent, lastSentWasFailure, mergeDeliveryStatus } from './notification-event.repository.js';
import type { NotificationRuleRow } from './notification-rule.repository.js';
import type { EvaluatedRun } from './trigger-evaluation.js';

/** The delivery status of a channel whose notification a silence or maintenance window holds. */
export function heldStatus(heldBy: HeldBy): Record<string, unknown> {
  return { status: 'held', heldBy };
}

/** Drops a held notification for good, saying why; it stays in the events log. */
export async function dropHeld(
  tx: DbTransaction,
  rule: NotificationRuleRow,
  eventId: string,
  reason: string,
  at: Date,
): Promise<void> {
  const event = await findEvent(tx, rule.organization_id, eventId);
  if (event === undefined) return;
  for (const [channelKey, delivery] of Object.entries(event.delivery_status))
    if (delivery.status === 'held')
      await mergeDeliveryStatus(
        tx,
        rule.organization_id,
        eventId,
        channelKey,
        { ...delivery, status: 'dropped', reason, attemptedAt: at.toISOString() },
        {},
      );
}

/**
 * Decides the rule's held notification once nothing holds the monitor any more (the first run after its silence
 * or window ends), under the rule's lock. `drop` drops it; `deliver` sends it when it is still true: a failure
 * while the condition still holds, a recovery (or resolution) while an alert that was sent is still open.
 * Anything else is dropped, saying why. Answers the delivery to enqueue, if any.
 */
export async function releaseHeld(
  tx: DbTransaction,
  rule: NotificationRuleRow,
  eventId: string,
  run: EvaluatedRun & { monitorId: string },
  conditionHolds: boolean,
): Promise<DeliveryJobData | undefined> {
  const org = rule.organization_id;
  const event = await findEvent(tx, org, eventId);
  const entry = event === undefined ? undefined : Object.entries(event.channels_notified)[0];
  if (event === undefined || entry === undefined) return undefined;
  const [channelKey, target] = entry;
  if (event.delivery_status[channelKey]?.status !== 'held') return undefined;
  if (rule.held_notifications === 'drop')
    return drop('the rule drops held notifications (heldNotifications: drop)');
  const stillTrue =
    target.kind === 'recovery'
      ? run.success && (await lastSentWasFailure(tx, org, run.monitorId, target.location, event.created_at))
      : conditionHolds;
  if (!stillTrue) return drop('no longer true when the silence or maintenance window ended');
  await mergeDeliveryStatus(
    tx,
    org,
    eventId,
    channelKey,
    { status: 'pending', releasedAt: run.at.toISOString() },
    {},
  );
  return { organizationId: org, eventId, channelKey, ruleId: rule.id };

  async function drop(reason: string) {
    await dropHeld(tx, rule, eventId, reason, run.at);
    return undefined;
  }
}
