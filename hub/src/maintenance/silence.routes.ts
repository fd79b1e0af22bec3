import { Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { silenceCreateSchema } from '../contract/maintenance-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import { silenceIdParams, silenceSchema, silencesQuery } from './maintenance.schema.js';
import type { SilenceService } from './silence.service.js';

/** Silences are written by whoever may change monitors (editor and admin), as a deploy needs them. */
export function silenceRoutes(silences: SilenceService): Router {
  const router = Router();

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(silencesQuery, req.query, 'query');
      const { data, total } = await silences.list(principalOf(req).organizationId, query);
      res.json({ data, total, limit: query.limit, offset: query.offset });
    })
    .post(requirePermission('monitors:write'), async (req, res) => {
      const body = parseInput(silenceCreateSchema, req.body, 'body');
      const principal = principalOf(req);
      const silence = await silences.create(principal.organizationId, principal.subject, body);
      res.location(`${req.baseUrl}/${silence.id}`);
      res.status(201).json({ data: silence });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/:id')
    .get(requirePermission('read'), async (req, res) => {
      const { id } = parseInput(silenceIdParams, req.params, 'path');
      res.json({ data: await silences.get(principalOf(req).organizationId, id) });
    })
    // Alertmanager's DELETE: the silence ends now and its row stays, for audit.
    .delete(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(silenceIdParams, req.params, 'path');
      const principal = principalOf(req);
      res.json({ data: await silences.expire(principal.organizationId, id, principal.subject) });
    })
    .all(methodNotAllowed(['GET', 'DELETE']));

  return router;
}

const tags = ['silences'];

export const silencePaths: ZodOpenApiPathsObject = {
  '/silences': {
    get: {
      tags,
      summary: 'List silences, newest first, expired ones included (for audit)',
      requestParams: { query: silencesQuery },
      responses: {
        '200': jsonResponse('A page of silences.', limitOffsetPage(silenceSchema)),
        ...errorResponses(400),
      },
    },
    post: {
      tags,
      summary: 'Create a silence: matching notifications are held until it ends',
      requestBody: { content: { 'application/json': { schema: silenceCreateSchema } } },
      responses: {
        '201': jsonResponse('The silence.', dataOf(silenceSchema)),
        ...errorResponses(400, 415),
      },
    },
  },
  '/silences/{id}': {
    get: {
      tags,
      summary: 'Read a silence',
      requestParams: { path: silenceIdParams },
      responses: { '200': jsonResponse('The silence.', dataOf(silenceSchema)), ...errorResponses(400, 404) },
    },
    delete: {
      tags,
      summary: 'Expire a silence now (its row is kept)',
      requestParams: { path: silenceIdParams },
      responses: {
        '200': jsonResponse('The silence, expired.', dataOf(silenceSchema)),
        ...errorResponses(400, 404),
      },
    },
  },
};
