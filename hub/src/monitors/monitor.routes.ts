import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { monitorDefinitionSchema, monitorSchema } from '../contract/monitor-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import {
  listMonitorsQuery,
  monitorByNameQuery,
  monitorIdParams,
  monitorWriteQuery,
} from './monitor.schema.js';
import type { MonitorService } from './monitor.service.js';

export function monitorRoutes(monitors: MonitorService): Router {
  const router = Router();

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      const { page, limit, ...filter } = parseInput(listMonitorsQuery, req.query, 'query');
      const { data, total } = await monitors.list(principalOf(req).organizationId, filter, { page, limit });
      res.json({ data, total, page, limit });
    })
    .post(requirePermission('monitors:write'), async (req, res) => {
      const definition = parseInput(monitorDefinitionSchema, req.body, 'body');
      const dryRun = parseInput(monitorWriteQuery, req.query, 'query').dryRun === 'true';
      const { monitor } = await monitors.create(principalOf(req).organizationId, definition, { dryRun });
      // A dry run's id is made up for the answer: there is nothing at a Location to point to.
      if (!dryRun) res.location(`${req.baseUrl}/${monitor.id}`);
      res.status(201).json({ data: monitor });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/by-name')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(monitorByNameQuery, req.query, 'query');
      res.json({ data: await monitors.getByName(principalOf(req).organizationId, query) });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      res.json({ data: await monitors.get(principalOf(req).organizationId, id) });
    })
    .put(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      const definition = parseInput(monitorDefinitionSchema, req.body, 'body');
      const dryRun = parseInput(monitorWriteQuery, req.query, 'query').dryRun === 'true';
      const { monitor, created } = await monitors.upsert(principalOf(req).organizationId, id, definition, {
        dryRun,
      });
      res.status(created ? 201 : 200).json({ data: monitor });
    })
    .delete(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      await monitors.remove(principalOf(req).organizationId, id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

const monitorPage = z.object({
  data: z.array(monitorSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
const definitionBody = { content: { 'application/json': { schema: monitorDefinitionSchema } } };
const tags = ['monitors'];

export const monitorPaths: ZodOpenApiPathsObject = {
  '/monitor/': {
    get: {
      tags,
      summary: 'List monitors, filtered by project and environment',
      requestParams: { query: listMonitorsQuery },
      responses: {
        '200': jsonResponse('A page of monitors (page is zero-based).', monitorPage),
        ...errorResponses(400),
      },
    },
    post: {
      tags,
      summary: 'Create a monitor with a server-chosen id (role editor)',
      requestParams: { query: monitorWriteQuery },
      requestBody: definitionBody,
      responses: {
        '201': jsonResponse('The created monitor.', dataOf(monitorSchema)),
        ...errorResponses(400, 409, 413, 415),
      },
    },
  },
  '/monitor/by-name': {
    get: {
      tags,
      summary: 'Find a monitor by project, environment and name',
      requestParams: { query: monitorByNameQuery },
      responses: { '200': jsonResponse('The monitor.', dataOf(monitorSchema)), ...errorResponses(400, 404) },
    },
  },
  '/monitor/{id}': {
    get: {
      tags,
      summary: 'Get a monitor',
      requestParams: { path: monitorIdParams },
      responses: { '200': jsonResponse('The monitor.', dataOf(monitorSchema)), ...errorResponses(400, 404) },
    },
    put: {
      tags,
      summary: 'Create or update a monitor and sync its notification rules and schedules (role editor)',
      description: 'Idempotent: the same body again changes nothing, `updatedAt` included.',
      requestParams: { path: monitorIdParams, query: monitorWriteQuery },
      requestBody: definitionBody,
      responses: {
        '200': jsonResponse('Updated (or unchanged).', dataOf(monitorSchema)),
        '201': jsonResponse('Created.', dataOf(monitorSchema)),
        ...errorResponses(400, 409, 413, 415),
      },
    },
    delete: {
      tags,
      summary: 'Delete a monitor, its schedules, rules, runs and events (role editor)',
      requestParams: { path: monitorIdParams },
      responses: { '204': { description: 'Deleted.' }, ...errorResponses(400, 404) },
    },
  },
};
