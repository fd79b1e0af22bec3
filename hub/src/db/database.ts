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
  /** A pooled connection failed (the server restarted or went away); the pool replaces it on the next query. */
  onClientError?: (error: Error) => void;
}

/** What a process holds: the query builder and a description safe to log (no password). */
export interface DatabaseHandle {
  db: Db;
  description: string;
  embedded: boolean;
}

const CONNECT_TIMEOUT_MS = 5_000;

export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.url !== undefined) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // A query waits this long for a connection, then fails (and the API answers 503), never forever.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // A client whose server went away (a restart, a failover) emits 'error', idle or checked out: the pool
    // listens on idle ones only, and an 'error' without a listener ends the process. Every client gets one; the
    // query in flight fails on its own and the pool replaces the client.
    pool.on('error', (error) => target.onClientError?.(error));
    pool.on('connect', (client) => client.on('error', (error) => target.onClientError?.(error)));
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
