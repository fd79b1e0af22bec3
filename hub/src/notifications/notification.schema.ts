import { z } from 'zod';
import { routingSchema, triggerSchema } from '../contract/notification-definition.js';
import { limitOffsetQuery } from '../http/paging.js';

const deliveryStatusValues = ['pending', 'delivered', 'failed', 'skipped'] as const;

export const notificationRuleSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    monitorId: z.string(),
    integrationName: z.string(),
    integrationId: z.string(),
    trigger: triggerSchema,
    routing: routingSchema,
    cooldownMinutes: z.int().min(0).max(1440),
    repeatMinutes: z.int().nullable(),
    sendResolved: z.boolean(),
    heldNotifications: z.enum(['deliver', 'drop']),
    enabled: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    lastTriggeredAt: z.iso.datetime().nullable(),
    monitor: z.object({
      id: z.string(),
      name: z.string(),
      version: z.string(),
      frequency: z.unknown(),
      locations: z.array(z.string()),
    }),
  })
  .meta({ id: 'NotificationRule' });
export type NotificationRule = z.infer<typeof notificationRuleSchema>;

export const notificationEventSchema = z
  .object({
    id: z.string(),
    ruleId: z.string().nullable(),
    runId: z.string().nullable(),
    monitorId: z.string(),
    triggerReason: z.string().meta({ example: '3 consecutive failures in eu-west (threshold 3)' }),
    channelsNotified: z.record(z.string(), z.record(z.string(), z.unknown())),
    deliveryStatus: z.record(z.string(), z.record(z.string(), z.unknown())),
    createdAt: z.iso.datetime(),
    heldBy: z
      .object({ kind: z.enum(['silence', 'maintenance']), id: z.string() })
      .nullable()
      .meta({
        description:
          'The silence or maintenance window that held the notification (its channel status is then held, pending once released, or dropped).',
      }),
  })
  .meta({ id: 'NotificationEvent' });
export type NotificationEvent = z.infer<typeof notificationEventSchema>;

export const deliveryUpdateBody = z
  .strictObject({
    channelKey: z.string().min(1).max(300).meta({ example: 'chat:C0123' }),
    status: z.strictObject({
      status: z.enum(deliveryStatusValues),
      attemptedAt: z.iso.datetime().optional(),
      attempt: z.int().min(1).max(100).optional(),
      responseCode: z.int().min(0).max(999).optional(),
      messageId: z.string().max(998).optional(),
      error: z.string().max(4000).optional(),
      channelMeta: z
        .looseObject({
          channelType: z.enum(['chat', 'email', 'webhook']).optional(),
          thread_ts: z.string().optional(),
        })
        .optional(),
    }),
  })
  .meta({ id: 'DeliveryUpdate' });
export type DeliveryUpdate = z.infer<typeof deliveryUpdateBody>;

// ruleId first, as the published OpenAPI document lists the parameters.
export const eventsQuery = z.strictObject({
  ruleId: z.string().min(1).max(64).optional(),
  ...limitOffsetQuery.shape,
});

export const eventIdParams = z.object({ id: z.string().min(1).max(64) });
