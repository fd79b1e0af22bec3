import { z } from 'zod';

export const initiateOAuthBody = z
  .strictObject({
    name: z.string().min(1).max(128).meta({ description: 'name: the chat integration the install creates.' }),
    environment: z.string().min(1).max(63).default('default'),
    channel: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .meta({ description: 'channel: optional default channel id, kept in the integration config.' }),
  })
  .meta({ id: 'InitiateOAuth' });
export type InitiateOAuth = z.infer<typeof initiateOAuthBody>;

export const oauthInitiatedSchema = z
  .object({
    transactionId: z.string(),
    startUrl: z.url().meta({ description: 'startUrl: open it in a browser to install the Slack app.' }),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'OAuthTransaction' });
export type OAuthInitiated = z.infer<typeof oauthInitiatedSchema>;

export const oauthStatusSchema = z
  .object({
    status: z.enum(['pending', 'completed', 'expired', 'failed']),
    integrationId: z.string().optional(),
    errorMessage: z.string().optional(),
  })
  .meta({ id: 'OAuthTransactionStatus' });
export type OAuthStatus = z.infer<typeof oauthStatusSchema>;

export const transactionIdParams = z.object({ transactionId: z.string().min(1).max(64) });

export const oauthCallbackQuery = z.object({
  code: z.string().max(512).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});
export type OAuthCallbackQuery = z.infer<typeof oauthCallbackQuery>;
