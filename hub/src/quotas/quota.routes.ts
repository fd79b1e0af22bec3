import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePlatformAdmin } from '../auth/middleware.js';
import { readIfMatch } from '../http/conditional-requests.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { limitOffsetPage, limitOffsetQuery } from '../http/paging.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, ifMatchHeader, jsonResponse } from '../openapi/responses.js';
import { quotaOverridesSchema } from './organization-quotas.js';
import { organizationParams, organizationQuotaStateSchema, quotaOverridesRowSchema } from './quota.schema.js';
import type { QuotaService } from './quota.service.js';

/** The admin API of quotas, mounted at /admin: platform admins only, for any organization. */
export function quotaRoutes(quotas: QuotaService, platformOrganization: string | undefined): Router {
  const router = Router();
  router.use(requirePlatformAdmin(platformOrganization));

  router
    .route('/quotas')
    .get(async (req, res) => {
      const query = parseInput(limitOffsetQuery, req.query, 'query');
      const { data, total } = await quotas.list(query);
      res.json({ data, total, limit: query.limit, offset: query.offset });
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/organizations/:organizationId/quotas')
    .get(async (req, res) => {
      const { organizationId } = parseInput(organizationParams, req.params, 'path');
      const { state, etag } = await quotas.get(organizationId);
      res.setHeader('ETag', etag).json({ data: state });
    })
    .put(async (req, res) => {
      const { organizationId } = parseInput(organizationParams, req.params, 'path');
      const overrides = parseInput(quotaOverridesSchema, req.body, 'body');
      const ifMatch = readIfMatch(req.get('if-match'));
      const by = principalOf(req).subject;
      const { state, etag } = await quotas.put(organizationId, overrides, by, ifMatch);
      res.setHeader('ETag', etag).json({ data: state });
    })
    .delete(async (req, res) => {
      const { organizationId } = parseInput(organizationParams, req.params, 'path');
      await quotas.reset(organizationId, readIfMatch(req.get('if-match')));
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

const tags = ['admin'];
const etagHeader = z.object({
  ETag: z.string().meta({
    description: 'Strong ETag of the overrides answered (not of the usage beside them), for If-Match.',
    example: '"pZ1s9aTq4mW0c3xKe8LbR2vYn6U"',
  }),
});
const overridesIfMatch = ifMatchHeader(
  'the overrides still have one of these ETags (`*`: always, the quotas always exist)',
);
const quotasAnswer = (description: string) => ({
  ...jsonResponse(description, dataOf(organizationQuotaStateSchema)),
  headers: etagHeader,
});
const platformOnly =
  ' Platform admins only (an `admin` of PLATFORM_ADMIN_ORGANIZATION); anyone else gets 403.';

export const quotaPaths: ZodOpenApiPathsObject = {
  '/admin/quotas': {
    get: {
      tags,
      summary: 'List the organizations whose quotas are overridden.' + platformOnly,
      requestParams: { query: limitOffsetQuery },
      responses: {
        '200': jsonResponse('A page of overrides.', limitOffsetPage(quotaOverridesRowSchema)),
        ...errorResponses(400),
      },
    },
  },
  '/admin/organizations/{organizationId}/quotas': {
    get: {
      tags,
      summary: "An organization's quotas: defaults, overrides, those in force and its usage." + platformOnly,
      requestParams: { path: organizationParams },
      responses: {
        '200': quotasAnswer('The quotas.'),
        ...errorResponses(400),
      },
    },
    put: {
      tags,
      summary:
        "Replace an organization's overrides: each quota given replaces the QUOTA_* default, 0 turns it off." +
        platformOnly,
      requestParams: { path: organizationParams, header: overridesIfMatch },
      requestBody: { content: { 'application/json': { schema: quotaOverridesSchema } } },
      responses: {
        '200': quotasAnswer('The quotas now.'),
        ...errorResponses(400, 412, 415),
      },
    },
    delete: {
      tags,
      summary: "Drop an organization's overrides: the defaults apply again." + platformOnly,
      requestParams: { path: organizationParams, header: overridesIfMatch },
      responses: { '204': { description: 'No overrides now.' }, ...errorResponses(400, 412) },
    },
  },
};
