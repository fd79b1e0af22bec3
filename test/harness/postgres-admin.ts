// Databases on the test PostgreSQL server, worked on through its admin database (the one its URL names).
// Free of vitest APIs: global-setup.ts, which runs outside the test workers, makes the template here.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';

/** Runs `work` with a client of the server's admin database. */
export async function onAdminDatabase(
  serverUrl: string,
  work: (client: pg.Client) => Promise<unknown>,
): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
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

/** Drops database `name`, once the connections still closing have left and terminating any others. */
export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return onAdminDatabase(serverUrl, async (client) => {
    await waitForDisconnects(client, name);
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/**
 * Creates a database migrated to the latest schema, for CREATE DATABASE ... TEMPLATE to clone; returns its name.
 * Cloning needs no session at all on the template, so it then refuses connections and the migration's have left.
 * The name is generated from hex digits only, so interpolating it into SQL is safe.
 */
export async function createMigratedTemplate(serverUrl: string): Promise<string> {
  const name = `meerkat_template_${randomBytes(8).toString('hex')}`;
  await onAdminDatabase(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  try {
    const { db } = openDatabase({ url: databaseUrl(serverUrl, name), dataDir: '/nonexistent', poolSize: 1 });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    await onAdminDatabase(serverUrl, async (client) => {
      await client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await waitForDisconnects(client, name);
    });
  } catch (error) {
    await dropDatabase(serverUrl, name);
    throw error;
  }
  return name;
}
