import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { maintenanceWindowDefinitionSchema } from '../contract/maintenance-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse } from '../openapi/responses.js';
import { maintenanceWindowSchema, windowNameParams } from './maintenance.schema.js';
import type { MaintenanceWindowService } from './maintenance-window.service.js';

/** Windows are named, so `PUT /maintenance-windows/{name}` is idempotent, as `apply` and the operator need. */
export function maintenanceWindowRoutes(windows: MaintenanceWindowService): Router {
  const router = Router();

  router
    .route('/')
    .get(requirePermission('read'), async (req, res) => {
      res.json({ data: await windows.list(principalOf(req).organizationId) });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/:name')
    .get(requirePermission('read'), async (req, res) => {
      const { name } = parseInput(windowNameParams, req.params, 'path');
      res.json({ data: await windows.get(principalOf(req).organizationId, name) });
    })
    .put(requirePermission('monitors:write'), async (req, res) => {
      const { name } = parseInput(windowNameParams, req.params, 'path');
      const definition = parseInput(maintenanceWindowDefinitionSchema, req.body, 'body');
      const principal = principalOf(req);
      const { window, created } = await windows.put(
        principal.organizationId,
        principal.subject,
        name,
        definition,
      );
      res.status(created ? 201 : 200).json({ data: window });
    })
    .delete(requirePermission('monitors:write'), async (req, res) => {
      const { name } = parseInput(windowNameParams, req.params, 'path');
      await windows.remove(principalOf(req).organizationId, name);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

const tags = ['maintenance'];

export const maintenanceWindowPaths: ZodOpenApiPathsObject = {
  '/maintenance-windows': {
    get: {
      tags,
      summary: 'List maintenance windows with their current and next occurrence',
      responses: { '200': jsonResponse('Every window.', dataOf(z.array(maintenanceWindowSchema))) },
    },
  },
  '/maintenance-windows/{name}': {
    get: {
      tags,
      summary: 'Read a maintenance window',
      requestParams: { path: windowNameParams },
      responses: {
        '200': jsonResponse('The window.', dataOf(maintenanceWindowSchema)),
        ...errorResponses(400, 404),
      },
    },
    put: {
      tags,
      summary: 'Create or replace a maintenance window by name',
      requestParams: { path: windowNameParams },
      requestBody: { content: { 'application/json': { schema: maintenanceWindowDefinitionSchema } } },
      responses: {
        '200': jsonResponse('The window, replaced.', dataOf(maintenanceWindowSchema)),
        '201': jsonResponse('The window, created.', dataOf(maintenanceWindowSchema)),
        ...errorResponses(400, 415),
      },
    },
    delete: {
      tags,
      summary: 'Delete a maintenance window',
      requestParams: { path: windowNameParams },
      responses: { '204': { description: 'Deleted.' }, ...errorResponses(400, 404) },
    },
  },
};
