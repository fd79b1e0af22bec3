// Per-test-file isolation: each file gets its own database on the server that global-setup provides,
// so test files can run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { databaseUrl, dropDatabase, onAdminDatabase } from './postgres-admin.js';

export interface TestDatabase {
  /** Connection URL for the new database. */
  url: string;
  name: string;
  /** Drops the database, terminating any connections still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named database: empty, or with `migrated` a clone of the template global-setup migrated
 * (CREATE DATABASE ... TEMPLATE, much faster than migrating). With an external DATABASE_URL its role needs
 * CREATEDB. The name is generated from hex digits only, so interpolating it into SQL is safe.
 */
export async function createTestDatabase({ migrated = false } = {}): Promise<TestDatabase> {
  const serverUrl = inject('databaseUrl');
  const name = `meerkat_test_${randomBytes(8).toString('hex')}`;
  const template = migrated ? ` TEMPLATE ${inject('templateDatabase')}` : '';
  await onAdminDatabase(serverUrl, (client) => client.query(`CREATE DATABASE ${name}${template}`));
  return {
    url: databaseUrl(serverUrl, name),
    name,
    drop: () => dropDatabase(serverUrl, name),
  };
}

/** URL of the Redis server provided by global-setup; share it, but namespace keys per test file. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

/**
 * The same Redis server, on a numbered database of the caller's own: for tests whose processes use the default
 * queue names (`runs:default`, `notifications`), which other test files' workers consume on database 0.
 */
export function testRedisUrlOnDatabase(database: number): string {
  const url = new URL(testRedisUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

/** A key prefix no other test uses, for queues made in the test process (BullMQ `prefix`). */
export function testRedisPrefix(): string {
  return `test-${randomBytes(6).toString('hex')}`;
}

/** Redis's default database count; database 0 is shared, the rest are handed out by claimRedisDatabase. */
const REDIS_DATABASES = 16;
const CLAIM_SECONDS = 3600;

export interface ClaimedRedisDatabase {
  url: string;
  /** Empties the database and gives it back. */
  release(): Promise<void>;
}

/**
 * A Redis database of the caller's own, emptied, for tests whose processes use the default queue names
 * (`runs:default`, `notifications`) that other test files' workers consume on database 0. Claims are keys on
 * database 0 (SET NX, expiring in an hour should a run die), so parallel test files never share one; no file
 * picks a number by hand.
 */
export async function claimRedisDatabase(): Promise<ClaimedRedisDatabase> {
  const owner = randomBytes(6).toString('hex');
  const shared = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  try {
    for (let database = 1; database < REDIS_DATABASES; database += 1) {
      const claimKey = `meerkat-test:redis-database:${database}`;
      if ((await shared.set(claimKey, owner, 'EX', CLAIM_SECONDS, 'NX')) !== 'OK') continue;
      const url = testRedisUrlOnDatabase(database);
      const own = new Redis(url, { maxRetriesPerRequest: 1 });
      await own.flushdb().finally(() => own.disconnect());
      return {
        url,
        async release() {
          const again = new Redis(url, { maxRetriesPerRequest: 1 });
          await again.flushdb().finally(() => again.disconnect());
          const claims = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
          try {
            if ((await claims.get(claimKey)) === owner) await claims.del(claimKey);
          } finally {
            claims.disconnect();
          }
        },
      };
    }
    throw new Error(`every Redis database 1-${REDIS_DATABASES - 1} of the test server is claimed`);
  } finally {
    shared.disconnect();
  }
}
