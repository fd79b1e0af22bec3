import { z } from 'zod';

const windowMinutes = z
  .int()
  .min(1)
  .max(43_200)
  .meta({ description: 'window_minutes: required. 1 to 43200 (30 days).' });

export const triggerSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('run_failed') }),
    z.strictObject({ type: z.literal('run_recovered') }),
    z.strictObject({ type: z.literal('consecutive_failures'), threshold: z.int().min(1).max(1000) }),
    z.strictObject({
      type: z.literal('success_rate_below'),
      threshold: z.number().min(0).max(100),
      window_minutes: windowMinutes,
    }),
    z.strictObject({
      type: z.literal('latency_above'),
      threshold_ms: z.number().min(0).max(3_600_000),
      percentile: z.enum(['p50', 'p95', 'p99']),
      window_minutes: windowMinutes,
    }),
  ])
  .meta({ id: 'Trigger' });
export type Trigger = z.infer<typeof triggerSchema>;

export const routingSchema = z
  .discriminatedUnion('channelType', [
    z.strictObject({ channelType: z.literal('chat'), channel: z.string().min(1).max(256) }),
    z.strictObject({ channelType: z.literal('email'), toAddresses: z.array(z.email()).min(1).max(50) }),
    z.strictObject({ channelType: z.literal('webhook') }),
  ])
  .meta({ id: 'Routing' });
export type Routing = z.infer<typeof routingSchema>;

export const notificationDefinitionSchema = z
  .strictObject({
    trigger: triggerSchema,
    routing: routingSchema,
    integration: z.string().min(1).max(128).optional().meta({
      description:
        'integration: optional. Integration name; when omitted, the single enabled integration of the channel type is used.',
    }),
    cooldownMinutes: z.int().min(0).max(1440).optional().meta({
      description: 'cooldownMinutes: optional, default 15. Never suppresses run_recovered.',
    }),
    repeatMinutes: z.int().min(1).max(10_080).optional().meta({
      description:
        'repeatMinutes: optional, default none. While the notified condition holds, remind every so many minutes (1 to 10080).',
    }),
    sendResolved: z.boolean().optional().meta({
      description:
        'sendResolved: optional, default false. Notify when a notified condition clears (consecutive_failures, success_rate_below, latency_above).',
    }),
    heldNotifications: z.enum(['deliver', 'drop']).optional().meta({
      description:
        'heldNotifications: optional, default deliver. When the silence or maintenance window that held a notification ends: deliver it if it is still true, or drop it.',
    }),
  })
  .meta({ id: 'NotificationDefinition' });
export type NotificationDefinition = z.infer<typeof notificationDefinitionSchema>;
