import { z } from 'zod';

export const smtpCredentialsSchema = z
  .strictObject({
    host: z.string().min(1).max(253),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean().optional(),
    user: z.string().min(1).max(256).optional(),
    password: z.string().min(1).max(1024).optional(),
  })
  .meta({
    id: 'SmtpCredentials',
    description: 'Write-only SMTP credentials; stored encrypted, never returned.',
  });
export type SmtpCredentials = z.infer<typeof smtpCredentialsSchema>;

export const createConnectionBody = z
  .strictObject({
    provider: z.literal('cloud'),
    authMethod: z.literal('smtp', {
      error:
        'authMethod must be "smtp"; oauth connections are made by the OAuth flow (POST /integrations/oauth/initiate)',
    }),
    credentials: smtpCredentialsSchema,
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'CreateConnection' });
export type CreateConnection = z.infer<typeof createConnectionBody>;

export const connectionSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    provider: z.string().meta({ example: 'cloud' }),
    authMethod: z.enum(['smtp', 'oauth']),
    hasCredentials: z.boolean(),
    oauthConnectedAt: z.iso.datetime().nullable(),
    oauthScopes: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Connection' });
export type Connection = z.infer<typeof connectionSchema>;

export const connectionIdParams = z.object({ id: z.string().min(1).max(64) });
