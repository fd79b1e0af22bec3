import express, { Router, type Request } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { heartbeatTokenSchema } from '../contract/heartbeat.js';
import { monitorIdSchema } from '../contract/monitor-definition.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { RateLimitedError } from '../http/errors.js';
import { createTokenBuckets } from '../http/token-buckets.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorResponses, jsonResponse, rateLimitedResponse } from '../openapi/responses.js';
import type { Clock } from '../system/clock.js';
import { heartbeatTokenHash } from './heartbeat-token.js';
import { MAX_NOTE_CHARS, type HeartbeatService, type PingKind } from './heartbeat.service.js';

/** Per token: a job pinging /start and then its result every 10 s fits; a loop pinging does not. */
const PING_RATE = { perSecond: 0.5, burst: 20 };
const MAX_TOKENS_TRACKED = 50_000;
const PING_BODY_LIMIT = '10kb';

const monitorParams = z.strictObject({ id: monitorIdSchema });

/**
 * The public ping endpoint, `GET|POST /ping/<token>[/start|/fail]`: no bearer token, the ping token is the
 * credential. Mounted before the JSON body check (a job posts whatever its log says) and after the per-address
 * limit on refused credentials, which every unknown token (401) is charged to. A known token has its own bucket.
 */
export function heartbeatPingRoutes(service: HeartbeatService, clock: Clock): Router {
  const router = Router();
  const buckets = createTokenBuckets(PING_RATE, MAX_TOKENS_TRACKED, () => clock.now().getTime());
  const text = express.text({ type: () => true, limit: PING_BODY_LIMIT });

  const handle = (kind: PingKind) => async (req: Request<{ token: string }>, res: express.Response) => {
    const { token } = req.params;
    const taken = buckets.take(heartbeatTokenHash(token));
    if (!taken.allowed)
      throw new RateLimitedError(
        `more than ${PING_RATE.burst} pings in a burst for this token; retry in ${taken.retryAfterSeconds} s`,
        taken.retryAfterSeconds,
      );
    const body: unknown = req.body;
    const note = typeof body === 'string' && body.trim() !== '' ? body.trim() : undefined;
    await service.ping(token, kind, note);
    res.type('text/plain').send('OK\n');
  };

  for (const [path, kind] of [
    ['/:token', 'success'],
    ['/:token/start', 'start'],
    ['/:token/fail', 'fail'],
  ] as const)
    router
      .route(path)
      .get(handle(kind))
      .post(text, handle(kind))
      .all(methodNotAllowed(['GET', 'POST']));
  return router;
}

/** `POST /monitor/{id}/heartbeat-token`: a new ping token, shown once (role editor). */
export function heartbeatTokenRoutes(service: HeartbeatService): Router {
  const router = Router();
  router
    .route('/:id/heartbeat-token')
    .post(requirePermission('monitors:write'), async (req, res) => {
      const { id } = parseInput(monitorParams, req.params, 'path');
      res.status(201).json({ data: await service.mintToken(principalOf(req).organizationId, id) });
    })
    .all(methodNotAllowed(['POST']));
  return router;
}

const tokenParams = z.object({ token: z.string().meta({ description: 'The ping token.' }) });
const pingResponses = {
  '200': { description: 'Recorded.', content: { 'text/plain': { schema: z.literal('OK\n') } } },
  '401': { description: 'Unknown ping token (charged to the address, as refused credentials are).' },
  '413': { description: `Body larger than ${PING_BODY_LIMIT}.` },
  '429': rateLimitedResponse(
    `More than ${PING_RATE.burst} pings in a burst (${PING_RATE.perSecond * 60} a minute) for one token, or too ` +
      'many unknown tokens from this address (API_AUTH_FAILURES_PER_MINUTE).',
  ),
};
const pingOperation = (summary: string) => ({
  tags: ['heartbeats'],
  summary,
  description:
    `Public: no bearer token. An optional body (any type, the first ${MAX_NOTE_CHARS} characters) is kept as ` +
    "the run's note.",
  security: [],
  requestParams: { path: tokenParams },
  responses: pingResponses,
});
const pingPath = (summary: string) => ({ get: pingOperation(summary), post: pingOperation(summary) });

export const heartbeatPaths: ZodOpenApiPathsObject = {
  '/monitor/{id}/heartbeat-token': {
    post: {
      tags: ['heartbeats'],
      summary: "Mint a heartbeat monitor's ping token, replacing the earlier one (role editor)",
      description: 'The token is answered this once: only its hash is stored.',
      requestParams: { path: monitorParams },
      responses: {
        '201': jsonResponse('The new token and where to ping.', dataOf(heartbeatTokenSchema)),
        ...errorResponses(400, 404, 409),
      },
    },
  },
  '/ping/{token}': pingPath('Ping a heartbeat: the job succeeded (records a passed run)'),
  '/ping/{token}/start': pingPath('Ping a heartbeat: the job started (the next run measures from here)'),
  '/ping/{token}/fail': pingPath('Ping a heartbeat: the job failed (records a failed run)'),
};
