// Starts the real express app on port 0 against a fresh PostgreSQL database, with API keys for two
// organizations, so tests talk HTTP to it and then look at the database.
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import {
  createApiKeyVerifier,
  generateApiKey,
  hashApiKey,
  type ApiKeyEntry,
} from '../../hub/src/auth/api-keys.js';
import type { Role } from '../../hub/src/contract/roles.js';
import {
  createCredentialCipher,
  generateCredentialKey,
  type CredentialCipher,
} from '../../hub/src/crypto/credential-cipher.js';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import type { ConsoleSettings } from '../../hub/src/console/console.routes.js';
import type { EgressPolicies } from '../../hub/src/egress/egress-policies.js';
import { createApp, type AppQuotas } from '../../hub/src/server/app.js';
import { readinessChecks } from '../../hub/src/server/components.js';
import { listen } from '../../hub/src/http/listen.js';
import type { RateLimitSettings } from '../../hub/src/server/rate-limit.js';
import { createLocalSecretStore } from '../../hub/src/secrets/local-secret-store.js';
import type { SecretStore } from '../../hub/src/secrets/secret-store.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';
import type { RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import type { SlackSettings } from '../../hub/src/slack/slack-settings.js';
import type { Clock } from '../../hub/src/system/clock.js';
import { createTestDatabase, testRedisUrl } from './database.js';
import { loopbackEgressPolicies } from './egress.js';

const callers = {
  acmeAdmin: ['acme', 'admin'],
  acmeEditor: ['acme', 'editor'],
  acmeViewer: ['acme', 'viewer'],
  acmeService: ['acme', 'service'],
  globexAdmin: ['globex', 'admin'],
  // An admin of the platform organization: the admin API's caller when a test sets platformAdminOrganization.
  platformAdmin: ['meerkat-platform', 'admin'],
} as const satisfies Record<string, [string, Role]>;
export type Caller = keyof typeof callers;

/** The LOCATIONS of every test hub. */
export const testLocations = ['default', 'eu-west', 'us-east'];

export interface TestHub {
  url: string;
  db: Db;
  /** The hub's secrets backend, for workers that must read what the hub stored. */
  secrets: SecretStore;
  /** The hub's credential cipher, for workers that must decrypt what the hub stored. */
  cipher: CredentialCipher;
  /** The URL of the hub's own database, for child processes (`meerkat worker`) to share. */
  databaseUrl: string;
  keys: Record<Caller, string>;
  /** Sends JSON (or a raw string) as `caller`; `caller: null` sends no Authorization header. */
  request(
    method: string,
    path: string,
    options?: { as?: Caller | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

export interface TestHubOptions {
  redisUrl?: string | null;
  /** The secrets backend; the local one (under the hub's own key) when absent. */
  secrets?: (db: Db) => SecretStore;
  /** Where the hub logs; silent when absent. */
  log?: Logger;
  /** Where triggered runs go; an in-process queue nobody consumes when absent. */
  runQueue?: RunQueue;
  /** The hub's clock; the system clock when absent. */
  clock?: Clock;
  /** The Slack app settings; the install flow and events webhook answer 503 without them. */
  slack?: SlackSettings;
  /** METRICS_FLEET_MAX_AGE_PERCENT; the hub's default when absent. */
  metricsFleetMaxAgePercent?: number;
  /** MINUTE_ROLLUP_RETENTION_DAYS; minute rollups are taken to be kept for ever when absent. */
  minuteRollupRetentionDays?: number;
  /** The API rate limits; none when absent, so tests may call as fast as they like. */
  rateLimits?: RateLimitSettings;
  /** What saved monitors and integrations may target; loopback allowed (test/harness/egress.ts) when absent. */
  egress?: EgressPolicies;
  /** The web console's sign-in settings and build folder; api-key sign-in and web/dist when absent. */
  console?: ConsoleSettings;
  /** Quotas of organizations (QUOTA_* defaults, the platform organization); every default off when absent. */
  quotas?: AppQuotas;
  /** Run after each run the hub records itself (reports, heartbeat pings and misses); none when absent. */
  runFinishedHooks?: readonly RunFinishedHook[];
}

export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const database = await createTestDatabase({ migrated: true });
  const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
  await migrateToLatest(db); // nothing to apply, unless a migration was added since global-setup ran (watch mode)

  const keys = {} as Record<Caller, string>;
  const entries: ApiKeyEntry[] = [];
  for (const [caller, [organizationId, role]] of Object.entries(callers) as Array<[Caller, [string, Role]]>) {
    keys[caller] = generateApiKey();
    entries.push({ organizationId, role, sha256: hashApiKey(keys[caller]) });
  }

  const redisUrl = options.redisUrl === undefined ? testRedisUrl() : options.redisUrl;
  const redis =
    redisUrl === null
      ? undefined
      : new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis?.on('error', () => undefined);
  await redis?.connect().catch(() => undefined);

  const cipher = createCredentialCipher(generateCredentialKey());
  const secrets = options.secrets?.(db) ?? createLocalSecretStore({ db, cipher });
  const log = options.log ?? pino({ level: 'silent' });
  const app = createApp({
    db,
    log,
    verifier: createApiKeyVerifier(entries),
    cipher,
    secrets,
    runQueue: options.runQueue ?? createInProcessRunQueue({ log }),
    readiness: readinessChecks(db, redis),
    locations: testLocations,
    egress: options.egress ?? loopbackEgressPolicies,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.slack ? { slack: options.slack } : {}),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.console ? { console: options.console } : {}),
    ...(options.quotas ? { quotas: options.quotas } : {}),
    ...(options.runFinishedHooks ? { runFinishedHooks: options.runFinishedHooks } : {}),
    ...(options.metricsFleetMaxAgePercent === undefined
      ? {}
      : { metricsFleetMaxAgePercent: options.metricsFleetMaxAgePercent }),
    ...(options.minuteRollupRetentionDays === undefined
      ? {}
      : { metricsMinuteRollupRetentionDays: options.minuteRollupRetentionDays }),
  });
  // Through the hub's own listen(), so requests Node's parser refuses are answered as in production.
  const server = await listen(createServer(app), 0, '127.0.0.1');
  const { url } = server;

  return {
    url,
    db,
    databaseUrl: database.url,
    secrets,
    cipher,
    keys,
    request(method, path, { as = 'acmeAdmin', body, headers = {} } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      const all = init.headers as Record<string, string>;
      if (as !== null) all.authorization = `Bearer ${keys[as]}`;
      if (body !== undefined) {
        all['content-type'] ??= 'application/json';
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
      }
      return fetch(url + path, init);
    },
    async close() {
      await server.close();
      redis?.disconnect();
      await db.destroy();
      await database.drop();
    },
  };
}
