import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { poolSizeFor } from '../../hub/src/server/components.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';

/** The backends connected to `name`, as an observer on its own connection sees them (itself left out). */
async function backendsOn(observer: Db, name: string): Promise<number> {
  const { rows } = await sql<{ backends: number }>`
    select count(*)::int as backends from pg_stat_activity
    where datname = ${name} and pid <> pg_backend_pid()`.execute(observer);
  return rows[0]?.backends ?? 0;
}

// Each pooled connection is a PostgreSQL backend (docs/adr/0081-fewer-postgres-backends.md): a pool opens no more
// than its size, and one given `idleMs` closes what it no longer uses.
describe('the pool of a process', () => {
  let database: TestDatabase;
  let observer: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    observer = openDatabase({ url: database.url, dataDir: '/nonexistent', poolSize: 1 }).db;
  });
  afterAll(async () => {
    await observer.destroy();
    await database.drop();
  });

  it('opens at most its size, however many queries come at once', async () => {
    const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent', poolSize: 2 });
    try {
      const sleeps = Array.from({ length: 6 }, () => sql`select pg_sleep(0.2)`.execute(db));
      await eventually('the two connections open', async () =>
        (await backendsOn(observer, database.name)) === 2 ? true : undefined,
      );
      await Promise.all(sleeps);
      expect(await backendsOn(observer, database.name)).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('closes an idle connection after idleMs', async () => {
    const { db } = openDatabase({ url: database.url, dataDir: '/nonexistent', poolSize: 1, idleMs: 100 });
    try {
      await sql`select 1`.execute(db);
      const gone = await eventually('the idle connection closed', async () =>
        (await backendsOn(observer, database.name)) === 0 ? true : undefined,
      );
      expect(gone).toBe(true);
      await sql`select 1`.execute(db);
      expect(await backendsOn(observer, database.name)).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});

// The default size by roles (docs/adr/0081, docs/adr/0086-worker-in-the-hub.md).
describe('poolSizeFor', () => {
  it('gives the API alone ten, the API beside other roles five, and roles without the API three', () => {
    expect(poolSizeFor(['api'])).toBe(10);
    expect(poolSizeFor(['api', 'notifying', 'checking', 'scheduling'])).toBe(5);
    expect(poolSizeFor(['api', 'scheduling'])).toBe(5);
    expect(poolSizeFor(['notifying', 'checking', 'scheduling'])).toBe(3);
    expect(poolSizeFor(['scheduling'])).toBe(3);
  });
});
