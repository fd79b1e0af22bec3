import { z } from 'zod';
import { organizationIdSchema } from '../contract/roles.js';
import { scopeNameSchema } from '../contract/monitor-definition.js';
import { secretNameSchema } from '../contract/secret-reference.js';

/** Environments name Secret Manager secrets and database rows: the same plain names as monitors use. */
const environmentNameSchema = scopeNameSchema
  .default('default')
  .meta({ description: 'The environment whose secrets are meant.', example: 'production' });

/** `latest`, or a version number of the stored map (only the gcp backend keeps numbered versions). */
const secretVersionSchema = z
  .string()
  .regex(/^(latest|[1-9][0-9]{0,9})$/, 'a version is "latest" or a version number')
  .default('latest');

export const secretNameParams = z.strictObject({
  name: secretNameSchema.meta({ example: 'PAYMENTS_API_KEY' }),
});

export const environmentQuery = z.strictObject({ environment: environmentNameSchema });

export const putSecretBody = z
  .strictObject({
    value: z.string().meta({ description: 'The secret value; write-only, never returned by GET.' }),
    environment: environmentNameSchema,
  })
  .meta({ id: 'PutSecret' });
export type PutSecret = z.infer<typeof putSecretBody>;

export const resolveSecretBody = z
  .strictObject({
    name: secretNameSchema,
    environment: environmentNameSchema,
    organizationId: organizationIdSchema.meta({ description: 'Must be the caller’s own organization.' }),
    version: secretVersionSchema.meta({
      description:
        '`latest` (default) or a Secret Manager version number of the environment’s map (gcp only).',
    }),
  })
  .meta({ id: 'ResolveSecret' });
export type ResolveSecret = z.infer<typeof resolveSecretBody>;

export const secretSchema = z
  .object({ name: z.string(), environment: z.string() })
  .meta({ id: 'Secret', description: 'A secret’s identity; its value is never returned here.' });
export type Secret = z.infer<typeof secretSchema>;

export const resolvedSecretSchema = z
  .object({ name: z.string(), environment: z.string(), value: z.string() })
  .meta({ id: 'ResolvedSecret' });
export type ResolvedSecret = z.infer<typeof resolvedSecretSchema>;
