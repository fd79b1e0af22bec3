// Per-test-file isolation: each file gets its own database on the server that global-setup provides,
// so test files can run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  /** Connection URL for the new database. */
  url: string;
  name: string;
  /** Drops the database, terminating any connections still open to it. */
  drop(): Promise<void>;
}

/** Runs statements on the server's admin database (the one named in the provided databaseUrl). */
async function onAdminDatabase(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh, uniquely named database. With an external DATABASE_URL its role needs CREATEDB.
 * The name is generated from hex digits only, so interpolating it into SQL is safe.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `meerkat_test_${randomBytes(8).toString('hex')}`;
  await onAdminDatabase(`CREATE DATABASE ${name}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onAdminDatabase(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** URL of the Redis server provided by global-setup; share it, but namespace keys per test file. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}
