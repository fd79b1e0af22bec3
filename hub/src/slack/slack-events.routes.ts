import express, { Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { UnavailableError } from '../http/errors.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { jsonResponse, rateLimitedResponse } from '../openapi/responses.js';
import type { Clock } from '../system/clock.js';
import { verifySlackSignature } from './request-signature.js';
import type { SlackEventsService } from './slack-events.service.js';

/**
 * `POST /integrations/hooks/`: Slack's Events API. Mounted before the JSON parser because the signature covers
 * the exact bytes sent; nothing is parsed or written until it verifies.
 */
export function slackEventsRoutes(options: {
  events: SlackEventsService;
  signingSecret: string | undefined;
  clock: Clock;
  bodyLimit: string;
}): Router {
  const router = Router();
  router
    .route('/')
    .post(express.raw({ type: () => true, limit: options.bodyLimit }), async (req, res) => {
      if (options.signingSecret === undefined) {
        throw new UnavailableError('the Slack events webhook is not configured: set SLACK_SIGNING_SECRET');
      }
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      verifySlackSignature(
        options.signingSecret,
        {
          rawBody,
          signature: req.get('x-slack-signature'),
          timestamp: req.get('x-slack-request-timestamp'),
        },
        options.clock.now(),
      );
      const answer = await options.events.receive(rawBody);
      res.json(answer.body);
      if (answer.afterResponse !== undefined) {
        answer.afterResponse().catch((error: unknown) => {
          req.log.warn({ err: error }, 'Slack App Home could not be published');
        });
      }
    })
    .all(methodNotAllowed(['POST']));
  return router;
}

export const slackEventsPaths: ZodOpenApiPathsObject = {
  '/integrations/hooks/': {
    post: {
      tags: ['integrations'],
      summary: 'Slack Events API (no bearer token; signed with the v0 scheme)',
      description:
        'Verified with HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}` under SLACK_SIGNING_SECRET, ' +
        'compared to X-Slack-Signature; a timestamp more than 5 minutes away is refused. Retries of one event_id ' +
        'are processed once.',
      security: [],
      requestBody: { content: { 'application/json': { schema: z.looseObject({ type: z.string() }) } } },
      responses: {
        '200': jsonResponse('`{ challenge }` for url_verification, else `{ ok: true }`.', z.looseObject({})),
        '401': { description: 'Missing, stale or wrong signature; nothing was done.' },
        '429': rateLimitedResponse(
          'Too many refused signatures from this address (checked before the body is read), or too many events ' +
            'from this workspace; nothing was done, and Slack delivers the event again later.',
        ),
        '503': { description: 'SLACK_SIGNING_SECRET is not set.' },
      },
    },
  },
};
