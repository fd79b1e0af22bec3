import { Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage, limitOffsetQuery } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import { connectionIdParams, connectionSchema, createConnectionBody } from './connection.schema.js';
import type { ConnectionService } from './connection.service.js';

export function connectionRoutes(connections: ConnectionService): Router {
  const router = Router();

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      const page = parseInput(limitOffsetQuery, req.query, 'query');
      const { data, total } = await connections.list(principalOf(req).organizationId, page);
      res.json({ data, total, limit: page.limit, offset: page.offset });
    })
    .post(requirePermission('connections:write'), async (req, res) => {
      const body = parseInput(createConnectionBody, req.body, 'body');
      const connection = await connections.create(principalOf(req).organizationId, body);
      res.status(201).location(`${req.baseUrl}/${connection.id}`).json({ data: connection });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(connectionIdParams, req.params, 'path');
      res.json({ data: await connections.get(principalOf(req).organizationId, id) });
    })
    .delete(requirePermission('connections:write'), async (req, res) => {
      const { id } = parseInput(connectionIdParams, req.params, 'path');
      await connections.remove(principalOf(req).organizationId, id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'DELETE']));

  return router;
}

export const connectionPaths: ZodOpenApiPathsObject = {
  '/connections': {
    get: {
      tags: ['connections'],
      summary: 'List connections',
      requestParams: { query: limitOffsetQuery },
      responses: {
        '200': jsonResponse('A page of connections.', limitOffsetPage(connectionSchema)),
        ...errorResponses(400),
      },
    },
    post: {
      tags: ['connections'],
      summary: 'Create an SMTP connection (role admin)',
      requestBody: { content: { 'application/json': { schema: createConnectionBody } } },
      responses: {
        '201': jsonResponse('The connection, without its credentials.', dataOf(connectionSchema)),
        ...errorResponses(400, 413, 415),
      },
    },
  },
  '/connections/{id}': {
    get: {
      tags: ['connections'],
      summary: 'Get a connection',
      requestParams: { path: connectionIdParams },
      responses: {
        '200': jsonResponse('The connection.', dataOf(connectionSchema)),
        ...errorResponses(400, 404),
      },
    },
    delete: {
      tags: ['connections'],
      summary: 'Delete a connection (role admin)',
      requestParams: { path: connectionIdParams },
      responses: { '204': { description: 'Deleted.' }, ...errorResponses(400, 404, 409) },
    },
  },
};
