import { createDocument } from 'zod-openapi';
import { connectionPaths } from '../connections/connection.routes.js';
import { consolePaths } from '../console/console-api.routes.js';
import { metricsPaths } from '../metrics/metrics.routes.js';
import { integrationPaths } from '../integrations/integration.routes.js';
import { monitorPaths } from '../monitors/monitor.routes.js';
import { monitorBulkPaths } from '../monitors/monitor-bulk.js';
import { heartbeatPaths } from '../heartbeats/heartbeat.routes.js';
import { maintenanceWindowPaths } from '../maintenance/maintenance-window.routes.js';
import { silencePaths } from '../maintenance/silence.routes.js';
import { notificationPaths } from '../notifications/notification.routes.js';
import { quotaPaths } from '../quotas/quota.routes.js';
import { runPaths } from '../runs/run.routes.js';
import { secretPaths } from '../secrets/secret.routes.js';
import { oauthPaths } from '../slack/oauth.routes.js';
import { slackEventsPaths } from '../slack/slack-events.routes.js';
import { systemPaths } from '../system/system.routes.js';
import { assignOperationIds } from '../openapi/operation-ids.js';
import { methodNotAllowedResponse } from '../openapi/responses.js';
import { adjustRequestBodies } from '../openapi/request-bodies.js';

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(version: string) {
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Meerkat hub API',
      version,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        'Synthetic API monitoring hub. Every error body is `{ error, code, details? }`; 401 is `{ statusCode, error, message }`. ' +
        'A method a path does not serve is answered 405 with an `Allow` header (`#/components/responses/MethodNotAllowed`).',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'meerkat dev' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (AUTH_MODE=api-key) or an OIDC access token.',
        },
      },
      responses: { MethodNotAllowed: methodNotAllowedResponse },
    },
    paths: {
      ...systemPaths,
      ...monitorPaths,
      ...monitorBulkPaths,
      ...heartbeatPaths,
      ...runPaths,
      ...metricsPaths,
      ...connectionPaths,
      ...integrationPaths,
      ...oauthPaths,
      ...slackEventsPaths,
      ...notificationPaths,
      ...silencePaths,
      ...maintenanceWindowPaths,
      ...secretPaths,
      ...consolePaths,
      ...quotaPaths,
    },
  });
  assignOperationIds(document.paths ?? {});
  adjustRequestBodies(document);
  return document;
}
