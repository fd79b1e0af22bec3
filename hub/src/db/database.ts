import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;

/** What a repository function runs on: the database, or a transaction the caller holds. */
export type Executor = Db | Transaction<Database>;

export interface DatabaseTarget {
  /** A PostgreSQL URL; when absent the embedded PGlite database under `dataDir` is used. */
  url?: string | undefined;
  dataDir: string;
  poolSize?: number;
  onIdleClientError?: (error: Error) => void;
}

/** What a process holds: the query builder and a description safe to log (no password). */
export interface DatabaseHandle {
  db: Db;
  description: string;
  embedded: boolean;
}

export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.url !== undefined) {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10 });
    // An idle client whose server went away (a restart, a failover) emits 'error'; without a listener that
    // would end the process. The pool drops the client and the next query connects afresh.
    pool.on('error', (error) => target.onIdleClientError?.(error));
    const url = new URL(target.url);
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
      description: `postgres://${url.hostname}:${url.port || '5432'}${url.pathname}`,
      embedded: false,
    };
  }
  const directory = resolve(target.dataDir, 'pgdata');
  mkdirSync(directory, { recursive: true });
  return {
    db: new Kysely<Database>({ dialect: new PGliteDialect(new PGlite(directory)) }),
    description: `embedded PGlite at ${directory}`,
    embedded: true,
  };
}

/** Opens an in-memory PGlite database: the repository tests run against it as well as real PostgreSQL. */
export function openMemoryDatabase(): Db {
  return new Kysely<Database>({ dialect: new PGliteDialect(new PGlite()) });
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
