// Per-test-file isolation: each file gets its own database on the server that global-setup provides,
// so test files can run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  /** Connection URL for the new database. */
  url: string;
  name: string;
  /** Drops the database, terminating any connections still open to it. */
  drop(): Promise<void>;
}

/** Runs `work` with a client of the server's admin database (the one named in the provided databaseUrl). */
async function onAdminDatabase(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * pg's pool.end() resolves before its connections have closed on the server. Dropping WITH (FORCE) meanwhile
 * terminates them, and the closing clients report that as an unhandled error; so wait for them to leave first.
 */
async function waitForDisconnects(client: pg.Client, name: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { rows } = await client.query<{ connected: number }>(
      'select count(*)::int as connected from pg_stat_activity where datname = $1',
      [name],
    );
    if (rows[0]?.connected === 0) return;
    await sleep(20);
  }
}

/**
 * Creates a fresh, uniquely named database. With an external DATABASE_URL its role needs CREATEDB.
 * The name is generated from hex digits only, so interpolating it into SQL is safe.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `meerkat_test_${randomBytes(8).toString('hex')}`;
  await onAdminDatabase((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      onAdminDatabase(async (client) => {
        await waitForDisconnects(client, name);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
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
