// Per-test-file isolation: each file gets its own database on the server that global-setup provides,
// so test files can run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
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
