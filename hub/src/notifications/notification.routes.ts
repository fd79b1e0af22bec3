import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import {
  deliveryUpdateBody,
  eventIdParams,
  eventsQuery,
  notificationEventSchema,
  notificationRuleSchema,
} from './notification.schema.js';
import type { NotificationService } from './notification.service.js';

export function notificationRoutes(notifications: NotificationService): Router {
  const router = Router();

  // Rules change only through their monitor (PUT /monitor/{id}); the list is read-only.
  router
    .route('/rules')
    .get(requirePermission('read'), async (req, res) => {
      res.json({ data: await notifications.listRules(principalOf(req).organizationId) });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/events')
    .get(requirePermission('read'), async (req, res) => {
      const query = parseInput(eventsQuery, req.query, 'query');
      const { data, total } = await notifications.listEvents(principalOf(req).organizationId, query);
      res.json({ data, total, limit: query.limit, offset: query.offset });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/events/:id')
    .patch(requirePermission('events:report'), async (req, res) => {
      const { id } = parseInput(eventIdParams, req.params, 'path');
      const body = parseInput(deliveryUpdateBody, req.body, 'body');
      res.json({ data: await notifications.reportDelivery(principalOf(req).organizationId, id, body) });
    })
    .all(methodNotAllowed(['PATCH']));

  return router;
}

export const notificationPaths: ZodOpenApiPathsObject = {
  '/notifications/rules': {
    get: {
      tags: ['notifications'],
      summary: 'List notification rules (read-only: they follow PUT /monitor/{id})',
      responses: {
        '200': jsonResponse('Every rule of the organization.', dataOf(z.array(notificationRuleSchema))),
      },
    },
  },
  '/notifications/events': {
    get: {
      tags: ['notifications'],
      summary: 'List notification events, newest first',
      requestParams: { query: eventsQuery },
      responses: {
        '200': jsonResponse('A page of events.', limitOffsetPage(notificationEventSchema)),
        ...errorResponses(400),
      },
    },
  },
  '/notifications/events/{id}': {
    patch: {
      tags: ['notifications'],
      summary: 'Report a delivery attempt (role service)',
      requestParams: { path: eventIdParams },
      requestBody: { content: { 'application/json': { schema: deliveryUpdateBody } } },
      responses: {
        '200': jsonResponse('The event with the delivery merged in.', dataOf(notificationEventSchema)),
        ...errorResponses(400, 404, 415),
      },
    },
  },
};
