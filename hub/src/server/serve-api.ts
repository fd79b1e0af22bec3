import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApiKeyVerifier, type ApiKeyEntry } from '../auth/api-keys.js';
import { createOidcVerifier } from '../auth/oidc.js';
import type { TokenVerifier } from '../auth/principal.js';
import type { Settings } from '../config/settings.js';
import { createCredentialCipher } from '../crypto/credential-cipher.js';
import { openDatabase, pingDatabase, type DatabaseHandle } from '../db/database.js';
import { assertDatabaseCurrent, migrateToLatest } from '../db/migrator.js';
import { createApp } from '../http/app.js';
import type { ReadinessCheck } from '../system/system.routes.js';

export interface ServeOptions {
  settings: Readonly<Settings>;
  log: Logger;
  /** `dev` migrates its own database; `hub` refuses to start on one that is behind. */
  migrate: boolean;
  /** Keys in addition to AUTH_API_KEYS (the dev key). */
  extraApiKeys?: ApiKeyEntry[];
  secretsKey: string;
}

export interface RunningApi {
  server: Server;
  database: DatabaseHandle;
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

/** Opens the database and Redis, builds the app and listens on HOST:PORT. */
export async function serveApi(options: ServeOptions): Promise<RunningApi> {
  const { settings, log } = options;
  const database = openDatabase({ url: settings.DATABASE_URL, dataDir: settings.MEERKAT_DATA_DIR });
  const redis =
    settings.REDIS_URL === undefined
      ? undefined
      : new Redis(settings.REDIS_URL, {
          lazyConnect: true,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
        });
  redis?.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  try {
    if (options.migrate) await migrateToLatest(database.db);
    else await assertDatabaseCurrent(database.db);
    if (redis !== undefined) await redis.connect();
  } catch (error) {
    await database.db.destroy();
    redis?.disconnect();
    throw error;
  }

  const readiness: ReadinessCheck[] = [{ name: 'database', check: () => pingDatabase(database.db) }];
  if (redis !== undefined) readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });

  const app = createApp({
    db: database.db,
    log,
    verifier: createVerifier(settings, options.extraApiKeys ?? []),
    cipher: createCredentialCipher(options.secretsKey),
    readiness,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(settings.PORT, settings.HOST, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const url = `http://${settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST}:${settings.PORT}`;
  log.info({ url, database: database.description, redis: redis !== undefined }, 'hub API listening');

  return {
    server,
    database,
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await database.db.destroy();
      redis?.disconnect();
    },
  };
}

/** Stops cleanly on SIGINT/SIGTERM: in-flight requests finish, then connections close. */
export function closeOnSignals(running: { close(): Promise<void> }, log: Logger): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
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
