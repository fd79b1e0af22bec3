import { z } from 'zod';

const environmentName = z.string().min(1).max(63);
const integrationName = z.string().min(1).max(128);

const emailIntegrationConfigSchema = z
  .strictObject({
    providerType: z.literal('email'),
    fromAddress: z.email(),
    fromName: z.string().min(1).max(256).optional(),
    replyTo: z.email().optional(),
  })
  .meta({ id: 'EmailIntegrationConfig' });

const webhookIntegrationConfigSchema = z
  .strictObject({ providerType: z.literal('webhook'), url: z.url({ protocol: /^https?$/ }) })
  .meta({ id: 'WebhookIntegrationConfig' });

/** Chat integrations are made by the OAuth flow; their config names the workspace they were installed in. */
const chatIntegrationConfigSchema = z
  .looseObject({ providerType: z.literal('chat'), teamId: z.string().optional() })
  .meta({ id: 'ChatIntegrationConfig' });

export const writableIntegrationConfigSchema = z.discriminatedUnion('providerType', [
  emailIntegrationConfigSchema,
  webhookIntegrationConfigSchema,
]);
export type WritableIntegrationConfig = z.infer<typeof writableIntegrationConfigSchema>;

export const integrationConfigSchema = z.discriminatedUnion('providerType', [
  emailIntegrationConfigSchema,
  webhookIntegrationConfigSchema,
  chatIntegrationConfigSchema,
]);
export type IntegrationConfig = z.infer<typeof integrationConfigSchema>;

const webhookCredentialsSchema = z
  .strictObject({
    signingSecret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{24,}$/, 'must be a Standard Webhooks secret: whsec_ followed by base64'),
  })
  .meta({ id: 'WebhookCredentials', description: 'Write-only; stored encrypted, never returned.' });

export const createIntegrationBody = z
  .strictObject({
    name: integrationName,
    environment: environmentName.default('default'),
    enabled: z.boolean().default(true),
    connectionId: z.string().min(1).max(64).optional(),
    config: writableIntegrationConfigSchema,
    credentials: webhookCredentialsSchema.optional(),
  })
  .meta({ id: 'CreateIntegration' });
export type CreateIntegration = z.infer<typeof createIntegrationBody>;

export const patchIntegrationBody = z
  .strictObject({
    name: integrationName.optional(),
    config: writableIntegrationConfigSchema.optional(),
    connectionId: z.string().min(1).max(64).optional(),
    environment: environmentName.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'PatchIntegration' });
export type PatchIntegration = z.infer<typeof patchIntegrationBody>;

export const integrationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    category: z.literal('notifications'),
    provider: z.string().meta({ example: 'cloud' }),
    name: z.string(),
    hasCredentials: z.boolean(),
    enabled: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    connectionId: z.string().nullable(),
    config: integrationConfigSchema,
    environment: z.string(),
  })
  .meta({ id: 'Integration' });
export type Integration = z.infer<typeof integrationSchema>;

export const integrationIdParams = z.object({ id: z.string().min(1).max(64) });
