import { Router, type Request } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf, requirePermission } from '../auth/middleware.js';
import { methodNotAllowed } from '../http/error-middleware.js';
import { parseInput } from '../http/validation.js';
import { dataOf, errorBodySchema, errorResponses, jsonResponse } from '../openapi/responses.js';
import { installResultPage } from './install-result-page.js';
import {
  initiateOAuthBody,
  oauthCallbackQuery,
  oauthInitiatedSchema,
  oauthStatusSchema,
  transactionIdParams,
} from './oauth.schema.js';
import { OAUTH_TRANSACTION_TTL_MS, type OAuthService } from './oauth.service.js';

/** Set by `start`, read by the callback: the browser that finishes an install must be the one that began it. */
const START_COOKIE = 'meerkat_oauth_transaction';

function startCookieOf(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === START_COOKIE) return value.join('=');
  }
  return undefined;
}

/** `start` and `callback` are browser navigations: no bearer token, protected by the transaction id and state. */
export function oauthBrowserRoutes(oauth: OAuthService): Router {
  const router = Router();
  router
    .route('/start/:transactionId')
    .get(async (req, res) => {
      const { transactionId } = parseInput(transactionIdParams, req.params, 'path');
      const started = await oauth.start(transactionId);
      res.setHeader('Cache-Control', 'no-store');
      if (started === undefined) {
        const message = 'This install link is unknown, finished or expired; start the install again.';
        res
          .status(404)
          .type('html')
          .send(installResultPage({ ok: false, message }));
        return;
      }
      res.cookie(START_COOKIE, transactionId, {
        httpOnly: true,
        // Lax: the cookie rides along on Slack's top-level redirect back, and on nothing cross-site else.
        sameSite: 'lax',
        secure: started.secureCookie,
        path: started.callbackPath,
        maxAge: OAUTH_TRANSACTION_TTL_MS,
      });
      res.redirect(302, started.authorizeUrl);
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/callback/chat')
    .get(async (req, res) => {
      const query = parseInput(oauthCallbackQuery, req.query, 'query');
      const outcome = await oauth.callback(query, startCookieOf(req));
      res.setHeader('Cache-Control', 'no-store');
      res.status(outcome.httpStatus).type('html').send(installResultPage(outcome));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

export function oauthRoutes(oauth: OAuthService): Router {
  const router = Router();
  router
    .route('/initiate')
    .post(requirePermission('oauth:write'), async (req, res) => {
      const body = parseInput(initiateOAuthBody, req.body, 'body');
      res.status(201).json({ data: await oauth.initiate(principalOf(req).organizationId, body) });
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/status/:transactionId')
    .get(requirePermission('read'), async (req, res) => {
      const { transactionId } = parseInput(transactionIdParams, req.params, 'path');
      res.json(await oauth.status(principalOf(req).organizationId, transactionId));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

const html = (description: string) => ({ description, content: { 'text/html': {} } });

/** What the browser routes answer before or besides their page: the error middleware's JSON bodies. */
const browserRouteErrors = {
  '500': jsonResponse('Internal error.', errorBodySchema),
  '503': jsonResponse('SLACK_CLIENT_ID, SLACK_CLIENT_SECRET or PUBLIC_URL is not set.', errorBodySchema),
};

export const oauthPaths: ZodOpenApiPathsObject = {
  '/integrations/oauth/initiate': {
    post: {
      tags: ['integrations'],
      summary: 'Start connecting a Slack workspace (role admin)',
      requestBody: { content: { 'application/json': { schema: initiateOAuthBody } } },
      responses: {
        '201': jsonResponse(
          'The transaction; open startUrl in a browser within 10 minutes.',
          dataOf(oauthInitiatedSchema),
        ),
        '503': jsonResponse(
          'SLACK_CLIENT_ID, SLACK_CLIENT_SECRET or PUBLIC_URL is not set.',
          errorBodySchema,
        ),
        ...errorResponses(400, 415),
      },
    },
  },
  '/integrations/oauth/start/{transactionId}': {
    get: {
      tags: ['integrations'],
      summary: 'Redirect the browser to Slack’s consent screen (no bearer token)',
      security: [],
      requestParams: { path: transactionIdParams },
      responses: {
        '302': { description: 'To Slack’s authorize address with client_id, scope, redirect_uri and state.' },
        '400': jsonResponse('The transaction id is malformed; `details` names it.', errorBodySchema),
        '404': html('The transaction is unknown, finished or expired.'),
        ...browserRouteErrors,
      },
    },
  },
  '/integrations/oauth/callback/chat': {
    get: {
      tags: ['integrations'],
      summary: 'Slack sends the browser back here (no bearer token)',
      security: [],
      requestParams: { query: oauthCallbackQuery },
      responses: {
        '200': html('The workspace is connected; the chat integration was created or updated.'),
        '400': html(
          'Missing, unknown, reused or expired state, or Slack refused; the transaction is failed.',
        ),
        ...browserRouteErrors,
      },
    },
  },
  '/integrations/oauth/status/{transactionId}': {
    get: {
      tags: ['integrations'],
      summary: 'Poll an OAuth transaction (answered at top level, not under data)',
      requestParams: { path: transactionIdParams },
      responses: {
        '200': jsonResponse('The transaction status.', oauthStatusSchema),
        ...errorResponses(400, 404),
      },
    },
  },
};
