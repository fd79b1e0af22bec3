import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import {
  hourlyRunsQuery,
  monitorHourlyRunsSchema,
  principalSummarySchema,
  publicStatusPageSchema,
  publicStatusParams,
  statusPageBody,
  statusPageParams,
  statusPageSchema,
  uptimeDaySchema,
  uptimeDaysQuery,
} from '../contract/console.js';
import { monitorIdSchema } from '../contract/monitor-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import {
  dataOf,
  errorBodySchema,
  errorResponses,
  jsonResponse,
  rateLimitedResponse,
} from '../openapi/responses.js';
import type { ConsoleService } from './console.service.js';

const monitorParams = z.strictObject({ monitorId: monitorIdSchema });

/** The figures the console's pages need beyond the metrics API, and the status page switch; after authentication. */
export function consoleApiRoutes(service: ConsoleService): Router {
  const router = Router();
  router
    .route('/principal')
    .get(requirePermission('read'), (req, res) => {
      res.json({ data: service.principal(principalOf(req)) });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/metrics/monitors/:monitorId/uptime-days')
    .get(requirePermission('read'), async (req, res) => {
      const { monitorId } = parseInput(monitorParams, req.params, 'path');
      const { days } = parseInput(uptimeDaysQuery, req.query, 'query');
      res.json({ data: await service.uptimeDays(principalOf(req).organizationId, monitorId, days) });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/metrics/hourly-runs')
    .get(requirePermission('read'), async (req, res) => {
      const { hours } = parseInput(hourlyRunsQuery, req.query, 'query');
      res.json({ data: await service.hourlyRuns(principalOf(req).organizationId, hours) });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/status-pages/:project')
    .get(requirePermission('read'), async (req, res) => {
      const { project } = parseInput(statusPageParams, req.params, 'path');
      res.json({ data: await service.statusPage(principalOf(req).organizationId, project) });
    })
    .put(requirePermission('monitors:write'), async (req, res) => {
      const { project } = parseInput(statusPageParams, req.params, 'path');
      const { enabled } = parseInput(statusPageBody, req.body, 'body');
      res.json({ data: await service.switchStatusPage(principalOf(req).organizationId, project, enabled) });
    })
    .all(methodNotAllowed(['GET', 'PUT']));
  return router;
}

/** The published status pages: no bearer token, so only what a page shows (names, health, uptime) comes back. */
export function publicStatusRoutes(service: ConsoleService): Router {
  const router = Router();
  router
    .route('/:slug')
    .get(async (req, res) => {
      const { slug } = parseInput(publicStatusParams, req.params, 'path');
      res.setHeader('Cache-Control', 'public, max-age=30');
      res.json({ data: await service.publicStatusPage(slug) });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

const tags = ['console'];
export const consolePaths: ZodOpenApiPathsObject = {
  '/principal': {
    get: {
      tags,
      summary: 'The caller’s organization, role and permissions',
      responses: { '200': jsonResponse('The caller.', dataOf(principalSummarySchema)), ...errorResponses() },
    },
  },
  '/metrics/monitors/{monitorId}/uptime-days': {
    get: {
      tags,
      summary: 'Uptime, runs and failures of one monitor per UTC day (day tier), oldest first',
      requestParams: { path: monitorParams, query: uptimeDaysQuery },
      responses: {
        '200': jsonResponse('One entry per day, today last.', dataOf(z.array(uptimeDaySchema))),
        ...errorResponses(400, 404),
      },
    },
  },
  '/metrics/hourly-runs': {
    get: {
      tags,
      summary:
        'Every monitor with its project, and its runs and failures per hour in the last hours (hour tier)',
      requestParams: { query: hourlyRunsQuery },
      responses: {
        '200': jsonResponse(
          'Every monitor; hours without runs are left out.',
          dataOf(z.array(monitorHourlyRunsSchema)),
        ),
        ...errorResponses(400),
      },
    },
  },
  '/status-pages/{project}': {
    get: {
      tags,
      summary: 'A project’s public status page setting',
      requestParams: { path: statusPageParams },
      responses: {
        '200': jsonResponse('The setting.', dataOf(statusPageSchema)),
        ...errorResponses(400, 404),
      },
    },
    put: {
      tags,
      summary: 'Publish a project’s status page, or stop (role editor)',
      requestParams: { path: statusPageParams },
      requestBody: { content: { 'application/json': { schema: statusPageBody } } },
      responses: {
        '200': jsonResponse('The setting.', dataOf(statusPageSchema)),
        ...errorResponses(400, 413, 415),
      },
    },
  },
  '/status-pages/public/{slug}': {
    get: {
      tags,
      security: [],
      summary: 'A published status page: names, current health and 90 days of uptime, without a key',
      requestParams: { path: publicStatusParams },
      responses: {
        '200': jsonResponse('The page.', dataOf(publicStatusPageSchema)),
        '400': jsonResponse('Not a status page slug.', errorBodySchema),
        '404': jsonResponse('No published page has this slug.', errorBodySchema),
        '429': rateLimitedResponse('Too many refused requests from this address; code `rate_limited`.'),
        '500': jsonResponse('Internal error.', errorBodySchema),
      },
    },
  },
};
