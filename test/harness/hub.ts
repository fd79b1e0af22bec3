// Starts the real express app on port 0 against a fresh PostgreSQL database, with API keys for two
// organizations, so tests talk HTTP to it and then look at the database.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import {
  createApiKeyVerifier,
  generateApiKey,
  hashApiKey,
  type ApiKeyEntry,
} from '../../hub/src/auth/api-keys.js';
import type { Role } from '../../hub/src/auth/principal.js';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import { openDatabase, pingDatabase, type Db } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { createApp } from '../../hub/src/http/app.js';
import type { ReadinessCheck } from '../../hub/src/system/system.routes.js';
import { createTestDatabase, testRedisUrl } from './database.js';

const callers = {
  acmeAdmin: ['acme', 'admin'],
  acmeEditor: ['acme', 'editor'],
  acmeViewer: ['acme', 'viewer'],
  acmeService: ['acme', 'service'],
  globexAdmin: ['globex', 'admin'],
} as const satisfies Record<string, [string, Role]>;
export type Caller = keyof typeof callers;

export interface TestHub {
  url: string;
  db: Db;
  keys: Record<Caller, string>;
  /** Sends JSON (or a raw string) as `caller`; `caller: null` sends no Authorization header. */
  request(
    method: string,
    path: string,
    options?: { as?: Caller | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestHub(options: { redisUrl?: string | null } = {}): Promise<TestHub> {
  const database = await createTestDatabase();
  const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent' });
  await migrateToLatest(db);

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
  const readiness: ReadinessCheck[] = [{ name: 'database', check: () => pingDatabase(db) }];
  if (redis !== undefined) readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });

  const app = createApp({
    db,
    log: pino({ level: 'silent' }),
    verifier: createApiKeyVerifier(entries),
    cipher: createCredentialCipher(generateCredentialKey()),
    readiness,
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    db,
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      redis?.disconnect();
      await db.destroy();
      await database.drop();
    },
  };
}
