import { Router } from 'express';
import type { ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorBodySchema, errorResponses, jsonResponse } from '../openapi/responses.js';
import type { SecretService } from './secret.service.js';
import {
  environmentQuery,
  putSecretBody,
  resolvedSecretSchema,
  resolveSecretBody,
  secretNameParams,
  secretSchema,
} from './secret.schema.js';

export function secretRoutes(secrets: SecretService): Router {
  const router = Router();

  // Before `/:name`, and POST only: other methods on /secrets/resolve reach the secret named "resolve".
  router.post('/resolve', requirePermission('secrets:resolve'), async (req, res) => {
    const body = parseInput(resolveSecretBody, req.body, 'body');
    res.json({ data: await secrets.resolve(principalOf(req).organizationId, body) });
  });

  router
    .route('/:name')
    .get(requirePermission('read'), async (req, res) => {
      const { name } = parseInput(secretNameParams, req.params, 'path');
      const { environment } = parseInput(environmentQuery, req.query, 'query');
      res.json({ data: await secrets.get(principalOf(req).organizationId, name, environment) });
    })
    .put(requirePermission('secrets:write'), async (req, res) => {
      const { name } = parseInput(secretNameParams, req.params, 'path');
      const body = parseInput(putSecretBody, req.body, 'body');
      const { secret, created } = await secrets.put(principalOf(req).organizationId, name, body);
      res.status(created ? 201 : 200).json({ data: secret });
    })
    .delete(requirePermission('secrets:write'), async (req, res) => {
      const { name } = parseInput(secretNameParams, req.params, 'path');
      const { environment } = parseInput(environmentQuery, req.query, 'query');
      await secrets.remove(principalOf(req).organizationId, name, environment);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

const storeErrors: ZodOpenApiResponsesObject = {
  '503': jsonResponse('The secret store did not answer, also after retries.', errorBodySchema),
};
const mapTooLarge: ZodOpenApiResponsesObject = {
  '413': jsonResponse(
    'The environment’s secret map would exceed 64 KiB (or the body 1 MiB); nothing was stored.',
    errorBodySchema,
  ),
};

export const secretPaths: ZodOpenApiPathsObject = {
  '/secrets/{name}': {
    get: {
      tags: ['secrets'],
      summary: 'Tell whether a secret exists (its value is never returned)',
      requestParams: { path: secretNameParams, query: environmentQuery },
      responses: {
        '200': jsonResponse('The secret exists.', dataOf(secretSchema)),
        ...errorResponses(400, 404),
        ...storeErrors,
      },
    },
    put: {
      tags: ['secrets'],
      summary: 'Create or replace a secret (role editor or admin)',
      requestParams: { path: secretNameParams },
      requestBody: { content: { 'application/json': { schema: putSecretBody } } },
      responses: {
        '200': jsonResponse('The secret was replaced.', dataOf(secretSchema)),
        '201': jsonResponse('The secret was created.', dataOf(secretSchema)),
        ...errorResponses(400, 415),
        ...mapTooLarge,
        ...storeErrors,
      },
    },
    delete: {
      tags: ['secrets'],
      summary:
        'Remove a secret; the environment’s stored map is deleted with its last name (role editor or admin)',
      requestParams: { path: secretNameParams, query: environmentQuery },
      responses: { '204': { description: 'Removed.' }, ...errorResponses(400, 404), ...storeErrors },
    },
  },
  '/secrets/resolve': {
    post: {
      tags: ['secrets'],
      summary: 'Read a secret’s value (role service; organizationId must be the caller’s own)',
      description: 'A POST, so that values stay out of URLs and access logs.',
      requestBody: { content: { 'application/json': { schema: resolveSecretBody } } },
      responses: {
        '200': jsonResponse('The value.', dataOf(resolvedSecretSchema)),
        ...errorResponses(400, 404, 413, 415),
        ...storeErrors,
      },
    },
  },
};
