import { answeredDefinition } from '../monitors/stored-definition.js';
import type { Db } from '../db/database.js';
import { NotFoundError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import {
  listEvents,
  mergeDeliveryStatus,
  type NotificationEventRow,
} from './notification-event.repository.js';
import { listRulesWithMonitors } from './notification-rule.repository.js';
import type { DeliveryUpdate, NotificationEvent, NotificationRule } from './notification.schema.js';

function eventRowToEvent(row: NotificationEventRow): NotificationEvent {
  return {
    id: row.id,
    ruleId: row.rule_id,
    runId: row.run_id,
    monitorId: row.monitor_id,
    triggerReason: row.trigger_reason,
    channelsNotified: row.channels_notified,
    deliveryStatus: row.delivery_status,
    createdAt: row.created_at.toISOString(),
    heldBy: row.held_by,
  };
}

/**
 * Records one delivery attempt's outcome. The PATCH endpoint and the delivery worker both come here, so a
 * notification worker outside the hub and the built-in one leave the same trace.
 */
export async function recordDeliveryOutcome(
  db: Db,
  clock: Clock,
  organizationId: string,
  eventId: string,
  update: DeliveryUpdate,
): Promise<NotificationEvent> {
  const { channelMeta, ...status } = update.status;
  const row = await mergeDeliveryStatus(
    db,
    organizationId,
    eventId,
    update.channelKey,
    { ...status, attemptedAt: status.attemptedAt ?? clock.now().toISOString() },
    channelMeta ?? {},
  );
  if (row === undefined) throw new NotFoundError(`notification event ${eventId} not found`);
  return eventRowToEvent(row);
}

export function createNotificationService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    async listRules(organizationId: string): Promise<NotificationRule[]> {
      const rows = await listRulesWithMonitors(db, organizationId);
      return rows.map((row) => {
        const definition = answeredDefinition(row.monitor_definition);
        return {
          id: row.id,
          organizationId: row.organization_id,
          monitorId: row.monitor_id,
          integrationName: row.integration_name,
          integrationId: row.integration_id,
          trigger: row.trigger,
          routing: row.routing,
          cooldownMinutes: row.cooldown_minutes,
          repeatMinutes: row.repeat_minutes,
          sendResolved: row.send_resolved,
          heldNotifications: row.held_notifications,
          enabled: row.enabled,
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
          lastTriggeredAt: row.last_triggered_at?.toISOString() ?? null,
          monitor: {
            id: row.monitor_id,
            name: definition.name,
            version: definition.version,
            frequency: definition.frequency,
            locations: definition.locations ?? [],
          },
        };
      });
    },

    async listEvents(
      organizationId: string,
      query: { ruleId?: string | undefined; limit: number; offset: number },
    ) {
      const { rows, total } = await listEvents(db, organizationId, query);
      return { data: rows.map(eventRowToEvent), total };
    },

    reportDelivery(organizationId: string, id: string, update: DeliveryUpdate) {
      return recordDeliveryOutcome(db, clock, organizationId, id, update);
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
