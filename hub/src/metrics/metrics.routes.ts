import { Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import {
  listMonitorMetricsQuery,
  metricsSummarySchema,
  monitorMetricsParams,
  monitorMetricsQuery,
  monitorMetricsRowSchema,
  monitorMetricsSchema,
} from './metrics.schema.js';
import type { MetricsService } from './metrics.service.js';

export function metricsRoutes(metrics: MetricsService): Router {
  const router = Router();

  router
    .route('/monitors/:monitorId')
    .get(requirePermission('read'), async (req, res) => {
      const { monitorId } = parseInput(monitorMetricsParams, req.params, 'path');
      const query = parseInput(monitorMetricsQuery, req.query, 'query');
      res.json({ data: await metrics.monitor(principalOf(req).organizationId, monitorId, query) });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/monitors')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(listMonitorMetricsQuery, req.query, 'query');
      const { data, total } = await metrics.list(principalOf(req).organizationId, query);
      res.json({ data, total, limit: query.limit, offset: query.offset });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/summary')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(monitorMetricsQuery, req.query, 'query');
      res.json({ data: await metrics.summary(principalOf(req).organizationId, query) });
    })
    .all(methodNotAllowed(['GET']));

  return router;
}

const tags = ['metrics'];
export const metricsPaths: ZodOpenApiPathsObject = {
  '/metrics/monitors/{monitorId}': {
    get: {
      tags,
      summary: 'Health, runs, latency, uptime and failures of one monitor over a period',
      requestParams: { path: monitorMetricsParams, query: monitorMetricsQuery },
      responses: {
        '200': jsonResponse('The monitor’s metrics.', dataOf(monitorMetricsSchema)),
        ...errorResponses(400, 404),
      },
    },
  },
  '/metrics/monitors': {
    get: {
      tags,
      summary: 'One metrics row per monitor, filtered, sorted and paged',
      requestParams: { query: listMonitorMetricsQuery },
      responses: {
        '200': jsonResponse('A page of rows.', limitOffsetPage(monitorMetricsRowSchema)),
        ...errorResponses(400),
      },
    },
  },
  '/metrics/summary': {
    get: {
      tags,
      summary: 'Fleet health over a period: monitors, runs, latency, uptime, failing monitors',
      requestParams: { query: monitorMetricsQuery },
      responses: {
        '200': jsonResponse('The summary.', dataOf(metricsSummarySchema)),
        ...errorResponses(400),
      },
    },
  },
};
