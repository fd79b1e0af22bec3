import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';

export const errorBodySchema = z
  .object({
    error: z.string().meta({ description: 'What went wrong, for a person.' }),
    code: z
      .enum([
        'validation_failed',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'request_timeout',
        'conflict',
        'precondition_failed',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limited',
        'quota_exceeded',
        'headers_too_large',
        'internal',
        'unavailable',
      ])
      .meta({ description: 'Machine-readable code.' }),
    details: z
      .array(
        z.object({
          path: z.string(),
          message: z.string(),
          quota: z.string().optional().meta({ description: 'With quota_exceeded: the quota exceeded.' }),
          limit: z
            .number()
            .optional()
            .meta({ description: "With quota_exceeded: the organization's limit." }),
        }),
      )
      .optional()
      .meta({ description: 'The failing fields, for validation errors.' }),
  })
  .meta({ id: 'Error' });

const unauthorizedBodySchema = z
  .object({ statusCode: z.literal(401), error: z.literal('Unauthorized'), message: z.string() })
  .meta({ id: 'Unauthorized' });

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** 429 from the rate limits (docs/adr/0012-rate-limits.md); the request was not processed and may be sent again. */
export function rateLimitedResponse(description: string): ZodOpenApiResponseObject {
  return {
    description,
    headers: z.object({
      'Retry-After': z
        .number()
        .int()
        .min(1)
        .meta({ description: 'Seconds until the request may be sent again.' }),
    }),
    ...json(errorBodySchema),
  };
}

/**
 * The If-Match request header of a conditional write (http/conditional-requests.ts): `current` says when the stored
 * version matches (what `*` means for the resource).
 */
export function ifMatchHeader(current: string) {
  return z.object({
    'If-Match': z
      .string()
      .optional()
      .meta({
        description:
          `Write only if ${current}; else 412 \`precondition_failed\`, nothing written. Without it the write is ` +
          'unconditional.',
      }),
  });
}

/** The error answers every authenticated operation may give, plus the ones named. */
export function errorResponses(
  ...statuses: Array<400 | 404 | 409 | 412 | 413 | 415>
): ZodOpenApiResponsesObject {
  const described: Record<number, string> = {
    400: 'Invalid request; `details` names the fields.',
    404: 'Not found in the caller’s organization.',
    409: 'Conflicts with the current state.',
    412: 'If-Match names no current version of the resource; nothing was written. Code `precondition_failed`.',
    413: 'Body larger than 1 MiB.',
    415: 'Body is not JSON.',
  };
  const responses: Record<string, ZodOpenApiResponseObject> = {
    '401': { description: 'Missing or invalid bearer token.', ...json(unauthorizedBodySchema) },
    '403': { description: 'The caller’s role may not do this.', ...json(errorBodySchema) },
    '429': rateLimitedResponse(
      'Too many requests from this caller (API_RATE_LIMIT_PER_SECOND, API_RATE_LIMIT_BURST), or too many refused ' +
        'credentials from this address (API_AUTH_FAILURES_PER_MINUTE); code `rate_limited`.',
    ),
    '500': { description: 'Internal error.', ...json(errorBodySchema) },
  };
  for (const status of statuses)
    responses[String(status)] = { description: described[status] ?? '', ...json(errorBodySchema) };
  return responses;
}

/**
 * 405: a method the path does not serve (http/error-middleware.ts `methodNotAllowed`). No operation answers it, so it
 * is a shared component the document's description names, with the `Allow` header listing the methods served.
 */
export const methodNotAllowedResponse: ZodOpenApiResponseObject = {
  description:
    'The path does not serve this method; `Allow` lists the ones it does. Code `method_not_allowed`.',
  headers: z.object({
    Allow: z
      .string()
      .meta({ description: 'The methods the path serves, comma-separated.', example: 'GET, POST' }),
  }),
  ...json(errorBodySchema),
};

export function jsonResponse(description: string, schema: z.ZodType) {
  return { description, ...json(schema) };
}

export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}
