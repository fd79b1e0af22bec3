import { Router, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { monitorDefinitionSchema, monitorSchema } from '../contract/monitor-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, ifMatchHeader, jsonResponse } from '../openapi/responses.js';
import {
  listMonitorsQuery,
  monitorByNameQuery,
  monitorIdParams,
  monitorWriteQuery,
} from './monitor.schema.js';
import type { MonitorService } from './monitor.service.js';
import { readIfMatch } from '../http/conditional-requests.js';
import { monitorEtag } from './monitor-etag.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { putMonitorsInBulk } from './monitor-bulk.js';

/** One monitor's answer, with the ETag an If-Match of a later PUT or DELETE names (docs/adr/0046-monitor-etags.md). */
function answerMonitor(res: Response, status: number, monitor: Monitor, options = { dryRun: false }): void {
  // A dry run's answer is no stored version: there is nothing an If-Match could name.
  if (!options.dryRun) res.setHeader('ETag', monitorEtag(monitor));
  res.status(status).json({ data: monitor });
}

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
      answerMonitor(res, 201, monitor, { dryRun });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/by-name')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(monitorByNameQuery, req.query, 'query');
      answerMonitor(res, 200, await monitors.getByName(principalOf(req).organizationId, query));
    })
    .all(methodNotAllowed(['GET']));

  // Only POST: any other method on /bulk is the route of a monitor whose id is `bulk`.
  router.post('/bulk', requirePermission('monitors:write'), async (req, res) => {
    res.json({ data: await putMonitorsInBulk(monitors, req) });
  });

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      answerMonitor(res, 200, await monitors.get(principalOf(req).organizationId, id));
    })
    .put(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      const definition = parseInput(monitorDefinitionSchema, req.body, 'body');
      const dryRun = parseInput(monitorWriteQuery, req.query, 'query').dryRun === 'true';
      const ifMatch = readIfMatch(req.get('if-match'));
      const { monitor, created } = await monitors.upsert(principalOf(req).organizationId, id, definition, {
        dryRun,
        ifMatch,
      });
      answerMonitor(res, created ? 201 : 200, monitor, { dryRun });
    })
    .delete(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(monitorIdParams, req.params, 'path');
      await monitors.remove(principalOf(req).organizationId, id, {
        ifMatch: readIfMatch(req.get('if-match')),
      });
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
const etagHeader = z.object({
  ETag: z.string().optional().meta({
    description: 'Strong ETag of this version of the monitor, for If-Match (not on dry runs).',
    example: '"4Jx1mQvYb0a2c9dKf3LzR8wTn5U"',
  }),
});
const monitorIfMatch = ifMatchHeader('the stored monitor still has one of these ETags (`*`: if it exists)');
const withEtag = (description: string) => ({
  ...jsonResponse(description, dataOf(monitorSchema)),
  headers: etagHeader,
});

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
        '201': withEtag('The created monitor.'),
        ...errorResponses(400, 409, 413, 415),
      },
    },
  },
  '/monitor/by-name': {
    get: {
      tags,
      summary: 'Find a monitor by project, environment and name',
      requestParams: { query: monitorByNameQuery },
      responses: { '200': withEtag('The monitor.'), ...errorResponses(400, 404) },
    },
  },
  '/monitor/{id}': {
    get: {
      tags,
      summary: 'Get a monitor',
      requestParams: { path: monitorIdParams },
      responses: { '200': withEtag('The monitor.'), ...errorResponses(400, 404) },
    },
    put: {
      tags,
      summary: 'Create or update a monitor and sync its notification rules and schedules (role editor)',
      description:
        'Idempotent: the same body again changes nothing, `updatedAt` and the ETag included. With If-Match, ' +
        'the check and the write are one transaction: of two writers sending one ETag, one wins, the other gets 412.',
      requestParams: { path: monitorIdParams, query: monitorWriteQuery, header: monitorIfMatch },
      requestBody: definitionBody,
      responses: {
        '200': withEtag('Updated (or unchanged).'),
        '201': withEtag('Created.'),
        ...errorResponses(400, 409, 412, 413, 415),
      },
    },
    delete: {
      tags,
      summary: 'Delete a monitor, its schedules, rules, runs and events (role editor)',
      requestParams: { path: monitorIdParams, header: monitorIfMatch },
      responses: { '204': { description: 'Deleted.' }, ...errorResponses(400, 404, 412) },
    },
  },
};
