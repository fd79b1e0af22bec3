import { Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage, limitOffsetQuery } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import {
  createIntegrationBody,
  integrationIdParams,
  integrationSchema,
  patchIntegrationBody,
} from './integration.schema.js';
import type { IntegrationService } from './integration.service.js';

export function integrationRoutes(integrations: IntegrationService): Router {
  const router = Router();

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      const page = parseInput(limitOffsetQuery, req.query, 'query');
      const { data, total } = await integrations.list(principalOf(req).organizationId, page);
      res.json({ data, total, limit: page.limit, offset: page.offset });
    })
    .post(requirePermission('integrations:write'), async (req, res) => {
      const body = parseInput(createIntegrationBody, req.body, 'body');
      const integration = await integrations.create(principalOf(req).organizationId, body);
      res.status(201).location(`${req.baseUrl}/${integration.id}`).json({ data: integration });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(integrationIdParams, req.params, 'path');
      res.json({ data: await integrations.get(principalOf(req).organizationId, id) });
    })
    .patch(requirePermission('integrations:write'), async (req, res) => {
      const { id } = parseInput(integrationIdParams, req.params, 'path');
      const body = parseInput(patchIntegrationBody, req.body, 'body');
      res.json({ data: await integrations.update(principalOf(req).organizationId, id, body) });
    })
    .delete(requirePermission('integrations:write'), async (req, res) => {
      const { id } = parseInput(integrationIdParams, req.params, 'path');
      await integrations.remove(principalOf(req).organizationId, id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PATCH', 'DELETE']));

  return router;
}

export const integrationPaths: ZodOpenApiPathsObject = {
  '/integrations': {
    get: {
      tags: ['integrations'],
      summary: 'List integrations',
      requestParams: { query: limitOffsetQuery },
      responses: {
        '200': jsonResponse('A page of integrations.', limitOffsetPage(integrationSchema)),
        ...errorResponses(400),
      },
    },
    post: {
      tags: ['integrations'],
      summary: 'Create an email or webhook integration (role admin)',
      requestBody: { content: { 'application/json': { schema: createIntegrationBody } } },
      responses: {
        '201': jsonResponse('The integration, without its credentials.', dataOf(integrationSchema)),
        ...errorResponses(400, 409, 413, 415),
      },
    },
  },
  '/integrations/{id}': {
    get: {
      tags: ['integrations'],
      summary: 'Get an integration',
      requestParams: { path: integrationIdParams },
      responses: {
        '200': jsonResponse('The integration.', dataOf(integrationSchema)),
        ...errorResponses(400, 404),
      },
    },
    patch: {
      tags: ['integrations'],
      summary: 'Update an integration (role admin)',
      requestParams: { path: integrationIdParams },
      requestBody: { content: { 'application/json': { schema: patchIntegrationBody } } },
      responses: {
        '200': jsonResponse('The integration.', dataOf(integrationSchema)),
        ...errorResponses(400, 404, 409, 415),
      },
    },
    delete: {
      tags: ['integrations'],
      summary: 'Delete an integration (role admin)',
      requestParams: { path: integrationIdParams },
      responses: { '204': { description: 'Deleted.' }, ...errorResponses(400, 404, 409) },
    },
  },
};
