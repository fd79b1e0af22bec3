import { z } from 'zod';

/** Secret names of DESIGN.md: they travel in URLs and references, so they stay plain. */
export const secretNameSchema = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/,
    'a secret name starts with a letter or "_" and has at most 128 letters, digits, "_", "." or "-"',
  );

/** `{ "$secret": { ref, version?, field? } }`: a value resolved only at the moment of use. */
export const secretReferenceSchema = z
  .strictObject({
    $secret: z.strictObject({
      ref: secretNameSchema.meta({
        description: 'ref: required. The secret name in the monitor’s environment.',
      }),
      version: z
        .string()
        .regex(/^(latest|[1-9][0-9]{0,9})$/, 'version is "latest" or a version number')
        .optional()
        .meta({ description: 'version: optional, default `latest`.' }),
      field: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .meta({ description: 'field: optional. When the value is a JSON object, the key to take.' }),
    }),
  })
  .meta({ id: 'SecretReference' });
export type SecretReference = z.infer<typeof secretReferenceSchema>;

export const secretOrStringSchema = z
  .union([z.string().max(8192), secretReferenceSchema])
  .meta({ id: 'SecretOrString', description: 'A literal string, or a reference to a secret.' });
export type SecretOrString = z.infer<typeof secretOrStringSchema>;
