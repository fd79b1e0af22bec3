import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createApiKeyVerifier, type ApiKeyEntry } from '../auth/api-keys.js';
import { createOidcVerifier } from '../auth/oidc.js';
import type { TokenVerifier } from '../auth/principal.js';
import type { Settings } from '../config/settings.js';
import { egressPoliciesOf } from '../egress/egress-policies.js';
import { quotaDefaultsOf } from '../quotas/organization-quotas.js';
import type { RunFinishedHook } from '../runs/run-finished.js';
import { consoleSettingsOf } from '../console/console-settings.js';
import { createApp } from './app.js';
import { rateLimitSettingsOf } from './rate-limit.js';
import { createMetricsService } from '../metrics/metrics.service.js';
import { createHttpRequestMetrics } from '../metrics/prometheus/http-request-metrics.js';
import { registerOverdueMonitorsMetric } from '../metrics/prometheus/fault-metrics.js';
import { registerSlotsMissedMetric } from '../ledger/slots-missed-metric.js';
import { registerMonitorHealthMetrics } from '../metrics/prometheus/monitor-health-metrics.js';
import { registerQueueDepthMetrics } from '../metrics/prometheus/queue-depth-metrics.js';
import { registerOrganizationQuotaMetrics } from '../metrics/prometheus/quota-metrics.js';
import { slackSettingsOf } from '../slack/slack-settings.js';
import { systemClock } from '../system/clock.js';
import type { Components } from './components.js';
import { listen } from '../http/listen.js';
import { startHeartbeatMisses } from '../heartbeats/heartbeat-misses.js';
import { createHeartbeatService } from '../heartbeats/heartbeat.service.js';

export interface ServeOptions {
  settings: Readonly<Settings>;
  log: Logger;
  components: Components;
  /** Keys in addition to AUTH_API_KEYS (the dev key). */
  extraApiKeys?: ApiKeyEntry[];
  /** The process's Prometheus registry: API request durations, queue depth and monitor health go in it. */
  metricsRegistry?: Registry;
  /** Run after each run result reported through the API (runner Jobs), as a worker runs them after its own. */
  runFinishedHooks?: readonly RunFinishedHook[];
}

export interface RunningApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

function createVerifier(settings: Readonly<Settings>, extraApiKeys: ApiKeyEntry[]): TokenVerifier {
  if (settings.AUTH_MODE === 'oidc') {
    return createOidcVerifier({
      issuer: settings.OIDC_ISSUER ?? '',
      audience: settings.OIDC_AUDIENCE ?? '',
      algorithms: settings.OIDC_ALGORITHMS,
    });
  }
  return createApiKeyVerifier([...settings.AUTH_API_KEYS, ...extraApiKeys]);
}

/**
 * How long the API keeps an idle connection open. Node's default is 5 s, and Node 20's fetch (undici 6: the CLI, the
 * operator, `bench:compare`) keeps a connection for the `Keep-Alive: timeout` the server sends less 2 s, on a timer
 * of 1 s resolution: a client whose timers run late (a loaded machine) sends on a socket the hub has just closed,
 * and fetch fails with "other side closed" or ECONNRESET. Longer than the 60 s idle timeout of the usual load
 * balancers and ingress proxies, so that one never reuses a connection the hub closed; `headersTimeout` must exceed
 * it, or Node closes the connection as it waits for the next request's headers.
 */
export const API_KEEP_ALIVE_MS = 65_000;
const API_HEADERS_TIMEOUT_MS = API_KEEP_ALIVE_MS + 1_000;

/** Sets the keep-alive timeouts of the API's server (API_KEEP_ALIVE_MS). */
export function keepConnectionsAlive(server: Server): void {
  server.keepAliveTimeout = API_KEEP_ALIVE_MS;
  server.headersTimeout = API_HEADERS_TIMEOUT_MS;
}

/** Builds the app over opened components and listens on HOST:PORT. */
export async function serveApi(options: ServeOptions): Promise<RunningApi> {
  const { settings, log, components, metricsRegistry } = options;
  // One metrics service: the API and the health gauges share its fleet snapshots.
  const metrics = createMetricsService({
    db: components.db,
    clock: systemClock,
    successThresholdPercent: settings.HEALTH_SUCCESS_THRESHOLD_PERCENT,
    fleetMaxAgePercent: settings.METRICS_FLEET_MAX_AGE_PERCENT,
    minuteRollupRetentionDays: settings.MINUTE_ROLLUP_RETENTION_DAYS,
    log,
  });
  if (metricsRegistry) {
    registerQueueDepthMetrics(metricsRegistry, components.db);
    registerOverdueMonitorsMetric(metricsRegistry, components.db);
    registerSlotsMissedMetric(
      metricsRegistry,
      components.db,
      settings.LOCATIONS.map((location) => location.name),
    );
    registerMonitorHealthMetrics(metricsRegistry, { db: components.db, metrics });
  }
  const quotaPolicy = { defaults: quotaDefaultsOf(settings), runRetentionDays: settings.RUN_RETENTION_DAYS };
  const quotaMetrics = metricsRegistry
    ? registerOrganizationQuotaMetrics(metricsRegistry, components.db, quotaPolicy)
    : undefined;
  const app = createApp({
    db: components.db,
    log,
    verifier: createVerifier(settings, options.extraApiKeys ?? []),
    cipher: components.cipher,
    secrets: components.secrets,
    runQueue: components.runQueue,
    readiness: components.readiness,
    locations: settings.LOCATIONS.map((location) => location.name),
    metrics,
    runFinishedHooks: options.runFinishedHooks ?? [],
    slack: slackSettingsOf(settings),
    egress: egressPoliciesOf(settings),
    rateLimits: rateLimitSettingsOf(settings),
    quotas: {
      policy: quotaPolicy,
      platformAdminOrganization: settings.PLATFORM_ADMIN_ORGANIZATION,
      ...(quotaMetrics ? { admitted: quotaMetrics.countRequest } : {}),
    },
    console: consoleSettingsOf(settings),
    ...(metricsRegistry ? { requestObserver: createHttpRequestMetrics(metricsRegistry) } : {}),
  });
  const server = createServer(app);
  keepConnectionsAlive(server);
  // Idle connections at once; requests in flight finish (answered with Connection: close) within the part of
  // SHUTDOWN_GRACE_SECONDS the process leaves them, then what is left is dropped.
  const { url, close } = await listen(server, settings.PORT, settings.HOST, {
    closeConnections: 'idle',
    drainMs: drainPartOfGraceMs(settings.SHUTDOWN_GRACE_SECONDS),
    setting: 'PORT',
  });
  log.info(
    { url, database: components.database.description, redis: settings.REDIS_URL !== undefined },
    'hub API listening',
  );
  const heartbeatMisses = startHeartbeatMisses(
    createHeartbeatService({
      db: components.db,
      clock: systemClock,
      hooks: options.runFinishedHooks ?? [],
      log,
    }),
    log,
  );

  return {
    server,
    url,
    async close() {
      await heartbeatMisses.stop();
      await close();
    },
  };
}

/**
 * The part of SHUTDOWN_GRACE_SECONDS that in-flight work (requests, runs) gets before it is cut short: the rest
 * is left for closing connections and recording what was cut, before the hard deadline of closeOnSignals.
 */
export function drainPartOfGraceMs(graceSeconds: number): number {
  const graceMs = graceSeconds * 1000;
  return Math.max(0, graceMs - Math.min(5_000, graceMs / 2));
}

/**
 * Stops cleanly on SIGINT/SIGTERM: in-flight work finishes, then connections close. Whatever the dependencies
 * do (a Redis or PostgreSQL that no longer answers can hold a close forever), the process exits within
 * `graceSeconds` (SHUTDOWN_GRACE_SECONDS): past it, it exits 1 saying so. The chart's
 * terminationGracePeriodSeconds is set above it, so Kubernetes never has to kill it.
 */
export function closeOnSignals(running: { close(): Promise<void> }, log: Logger, graceSeconds: number): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal, graceSeconds }, 'shutting down');
    // Not unref'd: a close stuck on a dependency must still end in this exit, never in a silent one.
    setTimeout(() => {
      log.error({ graceSeconds }, 'shutdown did not finish within SHUTDOWN_GRACE_SECONDS; exiting');
      process.exit(1);
    }, graceSeconds * 1000);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
