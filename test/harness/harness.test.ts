// Proves the globalSetup harness: a reachable PostgreSQL (with per-file databases) and Redis.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase, testRedisUrl } from './database.js';

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('test harness', () => {
  it('provides a PostgreSQL server', async () => {
    const { rows } = await withClient(inject('databaseUrl'), (client) =>
      client.query<{ version: string }>('select version()'),
    );
    expect(rows[0]?.version).toMatch(/^PostgreSQL \d+/);
  });

  it('creates an isolated database that can hold tables and drops it', async () => {
    const database = await createTestDatabase();
    try {
      const { rows } = await withClient(database.url, async (client) => {
        await client.query('create table probe (id int primary key, label text not null)');
        await client.query("insert into probe values (1, 'hello')");
        return client.query<{ db: string; label: string }>(
          'select current_database() as db, label from probe where id = 1',
        );
      });
      expect(rows).toEqual([{ db: database.name, label: 'hello' }]);
    } finally {
      await database.drop();
    }
    const { rows } = await withClient(inject('databaseUrl'), (client) =>
      client.query('select 1 from pg_database where datname = $1', [database.name]),
    );
    expect(rows).toHaveLength(0);
  });

  it('provides a Redis server', async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      expect(await redis.ping()).toBe('PONG');
      const key = `harness-test:${randomUUID()}`;
      await redis.set(key, 'value', 'EX', 60);
      expect(await redis.get(key)).toBe('value');
      await redis.del(key);
    } finally {
      await redis.quit();
    }
  });
});
