import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { authenticate } from '../auth/middleware.js';
import type { TokenVerifier } from '../auth/principal.js';
import { connectionRoutes } from '../connections/connection.routes.js';
import { consoleApiRoutes, publicStatusRoutes } from '../console/console-api.routes.js';
import { createConsoleService } from '../console/console.service.js';
import { consoleRoutes, type ConsoleSettings } from '../console/console.routes.js';
import { createConnectionService } from '../connections/connection.service.js';
import { integrationRoutes } from '../integrations/integration.routes.js';
import { createIntegrationService } from '../integrations/integration.service.js';
import { notificationRoutes } from '../notifications/notification.routes.js';
import { createNotificationService } from '../notifications/notification.service.js';
import { metricsRoutes } from '../metrics/metrics.routes.js';
import { DEFAULT_HEALTH_SUCCESS_THRESHOLD_PERCENT } from '../config/settings.js';
import { createMetricsService, type MetricsService } from '../metrics/metrics.service.js';
import { monitorRoutes } from '../monitors/monitor.routes.js';
import { heartbeatDependant } from '../heartbeats/heartbeat-dependant.js';
import { heartbeatPingRoutes, heartbeatTokenRoutes } from '../heartbeats/heartbeat.routes.js';
import { withoutPingToken } from '../heartbeats/heartbeat-token.js';
import { createHeartbeatService } from '../heartbeats/heartbeat.service.js';
import { maintenanceWindowRoutes } from '../maintenance/maintenance-window.routes.js';
import { createMaintenanceWindowService } from '../maintenance/maintenance-window.service.js';
import { silenceRoutes } from '../maintenance/silence.routes.js';
import { createSilenceService } from '../maintenance/silence.service.js';
import { runRoutes } from '../runs/run.routes.js';
import { createRunService } from '../runs/run.service.js';
import type { RunQueue } from '../runs/run-queue.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import { createMonitorService } from '../monitors/monitor.service.js';
import { NO_QUOTAS, type QuotaPolicy } from '../quotas/organization-quotas.js';
import { createQuotaSource } from '../quotas/quota-source.js';
import { quotaRoutes } from '../quotas/quota.routes.js';
import { createQuotaService } from '../quotas/quota.service.js';
import { notificationRuleDependant } from '../notifications/rule-sync.js';
import { scheduleDependant } from '../scheduling/schedule-dependant.js';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import { createEgressPolicies, type EgressPolicies } from '../egress/egress-policies.js';
import type { Db } from '../db/database.js';
import { buildOpenApiDocument } from './openapi-document.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { secretRoutes } from '../secrets/secret.routes.js';
import { createSecretService } from '../secrets/secret.service.js';
import { systemClock, type Clock } from '../system/clock.js';
import { oauthBrowserRoutes, oauthRoutes } from '../slack/oauth.routes.js';
import { createOAuthService } from '../slack/oauth.service.js';
import { createSlackEventsService } from '../slack/slack-events.service.js';
import { slackEventsRoutes } from '../slack/slack-events.routes.js';
import type { SlackSettings } from '../slack/slack-settings.js';
import { systemRoutes, type ReadinessCheck } from '../system/system.routes.js';
import { version as packageVersion } from '../system/version.js';
import { errorMiddleware, notFoundHandler } from '../http/error-middleware.js';
import { createRateLimits, type RateLimitSettings } from './rate-limit.js';
import { UnsupportedMediaTypeError } from '../http/errors.js';

export interface AppDeps {
  db: Db;
  log: Logger;
  verifier: TokenVerifier;
  cipher: CredentialCipher;
  /** The secrets backend SECRETS_BACKEND chose (local or gcp). */
  secrets: SecretStore;
  readiness: readonly ReadinessCheck[];
  /** Names of the configured locations (LOCATIONS). */
  locations?: readonly string[];
  /** Where triggered runs are enqueued: BullMQ, or in process for `meerkat dev` without Redis. */
  runQueue: RunQueue;
  /** Run after every run result recorded through the API (runner Jobs), as workers do. */
  runFinishedHooks?: readonly RunFinishedHook[];
  clock?: Clock;
  version?: string;
  /** How old the fleet metrics may be, in percent of their period (METRICS_FLEET_MAX_AGE_PERCENT). */
  metricsFleetMaxAgePercent?: number;
  /** MINUTE_ROLLUP_RETENTION_DAYS; minute rollups are taken to be kept for ever when absent. */
  metricsMinuteRollupRetentionDays?: number;
  /**
   * The metrics service, when the process shares it (with its Prometheus health gauges); else one is made on the
   * app's clock with the default of HEALTH_SUCCESS_THRESHOLD_PERCENT.
   */
  metrics?: MetricsService;
  /** Runs first on every request: the Prometheus HTTP request timer of the process. */
  requestObserver?: RequestHandler;
  /** The Slack app (install flow and events webhook); those endpoints answer 503 without it. */
  slack?: SlackSettings;
  /**
   * The egress policies monitors and integrations are checked against when saved (docs/egress.md); default the
   * built-in denies of a production process.
   */
  egress?: EgressPolicies;
  /** Per-caller, per-address and per-Slack-workspace limits (docs/adr/0012-rate-limits.md); none when absent. */
  rateLimits?: RateLimitSettings;
  /** The web console under /ui/ (docs/console.md); api-key sign-in and the default build folder when absent. */
  console?: ConsoleSettings;
  /** Quotas of organizations (docs/adr/0028-quotas-and-bulk-writes.md); every default off when absent. */
  quotas?: AppQuotas;
}

export interface AppQuotas {
  /** The QUOTA_* defaults and RUN_RETENTION_DAYS. */
  policy: QuotaPolicy;
  /** PLATFORM_ADMIN_ORGANIZATION: its admins use the admin API; nobody does when absent. */
  platformAdminOrganization?: string | undefined;
  /** Counts each request the requests-per-second quota let through (the usage series). */
  admitted?: (organizationId: string) => void;
}

const BODY_LIMIT = '1mb';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A body on a write must be JSON; anything else is 415 before it reaches a route. */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (
    hasBody &&
    ['POST', 'PUT', 'PATCH'].includes(req.method) &&
    !req.is(['application/json', 'application/*+json'])
  ) {
    throw new UnsupportedMediaTypeError('request body must be application/json');
  }
  next();
};

export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? systemClock;
  const egress = deps.egress ?? createEgressPolicies({ lists: {} });
  const version = deps.version ?? packageVersion;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  if (deps.requestObserver) app.use(deps.requestObserver);

  app.use(
    pinoHttp({
      logger: deps.log,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          // A ping URL's token is its credential: never logged.
          url: withoutPingToken(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    }),
  );
  const slack = deps.slack ?? {
    apiUrl: 'https://slack.com/api',
    authorizeUrl: 'https://slack.com/oauth/v2/authorize',
  };
  // One service, so the App Home and GET /metrics/summary share the same fleet snapshots.
  const metrics =
    deps.metrics ??
    createMetricsService({
      db: deps.db,
      clock,
      successThresholdPercent: DEFAULT_HEALTH_SUCCESS_THRESHOLD_PERCENT,
      ...(deps.metricsFleetMaxAgePercent === undefined
        ? {}
        : { fleetMaxAgePercent: deps.metricsFleetMaxAgePercent }),
      ...(deps.metricsMinuteRollupRetentionDays === undefined
        ? {}
        : { minuteRollupRetentionDays: deps.metricsMinuteRollupRetentionDays }),
      log: deps.log,
    });
  const quotaPolicy = deps.quotas?.policy ?? { defaults: NO_QUOTAS, runRetentionDays: 30 };
  const quotaSource = createQuotaSource({
    db: deps.db,
    defaults: quotaPolicy.defaults,
    now: () => clock.now().getTime(),
  });
  const rateLimits = createRateLimits(deps.rateLimits, () => clock.now().getTime(), {
    quotas: quotaSource,
    ...(deps.quotas?.admitted ? { admitted: deps.quotas.admitted } : {}),
  });
  // Before the JSON parser and authentication: Slack signs the raw bytes and sends no bearer token.
  app.use(
    '/integrations/hooks',
    rateLimits.beforeCredentialCheck,
    slackEventsRoutes({
      events: createSlackEventsService({
        db: deps.db,
        cipher: deps.cipher,
        clock,
        slack,
        metrics,
        log: deps.log,
        admitTeam: rateLimits.admitSlackTeam,
      }),
      signingSecret: slack.signingSecret,
      clock,
      bodyLimit: BODY_LIMIT,
    }),
  );
  const heartbeats = createHeartbeatService({
    db: deps.db,
    clock,
    hooks: deps.runFinishedHooks ?? [],
    log: deps.log,
  });
  // Before the JSON body check: a job pings with whatever body its log has (docs/monitors.md, heartbeats).
  app.use('/ping', rateLimits.beforeCredentialCheck, heartbeatPingRoutes(heartbeats, clock));
  app.use(requireJsonBody);
  app.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));

  const openApiDocument = buildOpenApiDocument(version);
  app.use(systemRoutes(version, deps.readiness));
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  const consoleService = createConsoleService({ db: deps.db, clock, metrics });
  // Public: the console's static pages and the opted-in status pages carry no bearer token.
  app.use('/ui', consoleRoutes(deps.console ?? { signIn: { authMode: 'api-key' } }));
  app.use('/status-pages/public', rateLimits.beforeCredentialCheck, publicStatusRoutes(consoleService));

  const oauth = createOAuthService({ db: deps.db, cipher: deps.cipher, clock, slack });
  app.use('/integrations/oauth', oauthBrowserRoutes(oauth));

  app.use(rateLimits.beforeCredentialCheck);
  app.use(authenticate(deps.verifier));
  app.use(rateLimits.perCaller);
  app.use('/integrations/oauth', oauthRoutes(oauth));
  app.use(
    '/admin',
    quotaRoutes(
      createQuotaService({ db: deps.db, clock, policy: quotaPolicy, source: quotaSource }),
      deps.quotas?.platformAdminOrganization,
    ),
  );
  app.use(
    '/connections',
    connectionRoutes(
      createConnectionService({ db: deps.db, cipher: deps.cipher, clock, egress: egress.global }),
    ),
  );
  app.use(
    '/integrations',
    integrationRoutes(
      createIntegrationService({ db: deps.db, cipher: deps.cipher, clock, egress: egress.global }),
    ),
  );
  app.use('/notifications', notificationRoutes(createNotificationService({ db: deps.db, clock })));
  app.use('/silences', silenceRoutes(createSilenceService({ db: deps.db, clock })));
  app.use(
    '/maintenance-windows',
    maintenanceWindowRoutes(createMaintenanceWindowService({ db: deps.db, clock })),
  );
  app.use('/secrets', secretRoutes(createSecretService({ store: deps.secrets })));
  app.use(
    '/monitor',
    monitorRoutes(
      createMonitorService({
        db: deps.db,
        clock,
        locations: deps.locations ?? ['default'],
        egress,
        quotas: quotaPolicy,
        // Synced inside every monitor upsert and delete, here only, so processes and tests keep rules and
        // schedules the same way.
        dependants: [notificationRuleDependant(clock), scheduleDependant, heartbeatDependant],
      }),
    ),
  );
  app.use('/monitor', heartbeatTokenRoutes(heartbeats));
  app.use(
    '/runs',
    runRoutes(
      createRunService({ db: deps.db, queue: deps.runQueue, clock, hooks: deps.runFinishedHooks ?? [] }),
    ),
  );
  app.use('/metrics', metricsRoutes(metrics));
  app.use(consoleApiRoutes(consoleService));

  app.use(notFoundHandler);
  app.use(errorMiddleware());
  return app;
}
