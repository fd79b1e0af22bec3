import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { runResultSchema, runSchema } from '../contract/run.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import { listRunsQuery, runIdParams, triggerRunBody, triggerRunParams } from './run.schema.js';
import type { RunService } from './run.service.js';

export function runRoutes(runs: RunService): Router {
  const router = Router();

  router
    .route('/trigger/:monitorId')
    .post(requirePermission('runs:write'), async (req, res) => {
      const { monitorId } = parseInput(triggerRunParams, req.params, 'path');
      const body = parseInput(triggerRunBody, req.body, 'body');
      const run = await runs.trigger(principalOf(req).organizationId, monitorId, body);
      res.status(201).location(`${req.baseUrl}/${run.id}`).json({ data: run });
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      const { page, limit, ...filter } = parseInput(listRunsQuery, req.query, 'query');
      const list = await runs.list(principalOf(req).organizationId, filter, { page, limit });
      res.json({ data: list.data, total: list.total, totalExact: list.totalExact, page, limit });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(runIdParams, req.params, 'path');
      res.json({ data: await runs.get(principalOf(req).organizationId, id) });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/:id/start')
    .post(requirePermission('runs:report'), async (req, res) => {
      const { id } = parseInput(runIdParams, req.params, 'path');
      res.json({ data: await runs.start(principalOf(req).organizationId, id) });
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/:id/result')
    .put(requirePermission('runs:report'), async (req, res) => {
      const { id } = parseInput(runIdParams, req.params, 'path');
      const result = parseInput(runResultSchema, req.body, 'body');
      res.json({ data: await runs.report(principalOf(req).organizationId, id, result) });
    })
    .all(methodNotAllowed(['PUT']));

  return router;
}

const tags = ['runs'];
export const runPaths: ZodOpenApiPathsObject = {
  '/runs/trigger/{monitorId}': {
    post: {
      tags,
      summary: 'Run a monitor now: one pending run per location, sharing an executionGroupId (role editor)',
      requestParams: { path: triggerRunParams },
      requestBody: { content: { 'application/json': { schema: triggerRunBody } } },
      responses: {
        '201': jsonResponse('The first run created.', dataOf(runSchema)),
        ...errorResponses(400, 404, 413, 415),
        '503': jsonResponse(
          'The run queue did not answer.',
          z.object({ error: z.string(), code: z.literal('unavailable') }),
        ),
      },
    },
  },
  '/runs/': {
    get: {
      tags,
      summary: 'List runs, newest first, with their monitor summary',
      requestParams: { query: listRunsQuery },
      responses: {
        '200': jsonResponse(
          'A page of runs.',
          z.object({
            data: z.array(runSchema),
            total: z
              .number()
              .int()
              .describe(
                'Matching runs: counted up to 10,000; above that, estimated from the day rollups (totalExact false).',
              ),
            totalExact: z.boolean().describe('Whether total was counted (true) or estimated (false).'),
            page: z.number().int(),
            limit: z.number().int(),
          }),
        ),
        ...errorResponses(400),
      },
    },
  },
  '/runs/{id}': {
    get: {
      tags,
      summary: 'Get one run with its per-step results',
      requestParams: { path: runIdParams },
      responses: { '200': jsonResponse('The run.', dataOf(runSchema)), ...errorResponses(400, 404) },
    },
  },
  '/runs/{id}/start': {
    post: {
      tags,
      summary: 'A runner Job takes its run: pending -> running, once (role service)',
      requestParams: { path: runIdParams },
      responses: {
        '200': jsonResponse('The run, now running.', dataOf(runSchema)),
        ...errorResponses(404, 409),
      },
    },
  },
  '/runs/{id}/result': {
    put: {
      tags,
      summary:
        'A runner Job reports its run’s outcome, accepted once while the run is running (role service)',
      requestParams: { path: runIdParams },
      requestBody: { content: { 'application/json': { schema: runResultSchema } } },
      responses: {
        '200': jsonResponse('The finished run.', dataOf(runSchema)),
        ...errorResponses(400, 404, 409, 413),
      },
    },
  },
};
