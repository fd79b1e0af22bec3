import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { embeddedDialect } from './embedded-database.js';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;

/** What a repository function runs on: the database, or a transaction the caller holds. */
export type Executor = Db | Transaction<Database>;

/**
 * A transaction a caller holds and hands to repositories (run-finished hooks, monitor dependants): named here so
 * that only db/ and repositories import kysely (eslint.boundaries.js).
 */
export type DbTransaction = Transaction<Database>;

export interface DatabaseTarget {
  /** A PostgreSQL URL; when absent the embedded PGlite database under `dataDir` is used. */
  url?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** How long an idle connection stays open before the pool closes it; node-postgres' 10 s when absent. */
  idleMs?: number;
  /** How long a statement may take; unset: as long as it takes (`meerkat migrate`). */
  bounds?: DatabaseBounds | undefined;
  /** A pooled connection failed (the server restarted or went away); the pool replaces it on the next query. */
  onClientError?: (error: Error) => void;
}

/** What a process holds: the query builder and a description safe to log (no password). */
export interface DatabaseHandle {
  db: Db;
  description: string;
  embedded: boolean;
}

/**
 * What one query may cost while PostgreSQL hangs (paused, a network that drops packets): a connection is waited
 * for at most `connectMs`, a statement runs at most `statementMs` on the server (which cancels it, and keeps the
 * connection), and the client gives up `CLIENT_GRACE_MS` later when the server does not answer at all. So a
 * query fails within `connectMs + statementMs + CLIENT_GRACE_MS`, as `Query read timeout` or SQLSTATE 57014,
 * both "the database is unavailable" (hub/src/system/dependency-errors.ts).
 */
export interface DatabaseBounds {
  connectMs: number;
  statementMs: number;
}

/** How much longer than the server's statement_timeout the client waits for an answer before giving up. */
const CLIENT_GRACE_MS = 500;
/** A connection waits this long without traffic before TCP probes that its peer is still there. */
const KEEP_ALIVE_IDLE_MS = 10_000;
/** Without bounds (`meerkat migrate`), a connection is still waited for no longer than this. */
const UNBOUNDED_CONNECT_MS = 5_000;

/** node-postgres' words for a query the server did not answer within `query_timeout`. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * A client that closes its connection when the server left a query unanswered past `query_timeout`: that
 * connection still waits for the answer (a paused server, a lost peer), and the pool would hand it out again,
 * to a query that would then wait behind it. Closed, it is replaced by a fresh one.
 */
function boundedClient(postgres: typeof pg) {
  return class BoundedClient extends postgres.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const query = this.query.bind(this) as (...args: unknown[]) => unknown;
      this.query = ((...args: unknown[]) => {
        const outcome = query(...args);
        if (outcome instanceof Promise)
          outcome.catch((error: unknown) => {
            if (error instanceof Error && error.message === QUERY_READ_TIMEOUT) closeConnection(this);
          });
        return outcome;
      }) as pg.Client['query'];
    }
  };
}

function closeConnection(client: pg.Client) {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * node-postgres' pool, made (and `pg` loaded) when the first query needs it: `meerkat dev` and the tests on PGlite
 * never load `pg` (docs/adr/0074-dev-memory.md).
 */
async function openPool(target: DatabaseTarget & { url: string }): Promise<pg.Pool> {
  const { default: postgres } = await import('pg');
  const { bounds } = target;
  const pool = new postgres.Pool({
    Client: boundedClient(postgres),
    connectionString: target.url,
    max: target.poolSize ?? 10,
    ...(target.idleMs !== undefined && { idleTimeoutMillis: target.idleMs }),
    // A query waits this long for a connection, then fails (and the API answers 503), never forever.
    connectionTimeoutMillis: bounds?.connectMs ?? UNBOUNDED_CONNECT_MS,
    ...(bounds && {
      statement_timeout: bounds.statementMs,
      query_timeout: bounds.statementMs + CLIENT_GRACE_MS,
    }),
    // A peer that vanished without a word (a node lost, a partition) is noticed by TCP, not never.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_IDLE_MS,
  });
  // A client whose server went away (a restart, a failover) emits 'error', idle or checked out: the pool
  // listens on idle ones only, and an 'error' without a listener ends the process. Every client gets one; the
  // query in flight fails on its own and the pool replaces the client.
  pool.on('error', (error) => target.onClientError?.(error));
  pool.on('connect', (client) => client.on('error', (error) => target.onClientError?.(error)));
  return pool;
}

export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  const { url } = target;
  if (url !== undefined) {
    const parsed = new URL(url);
    return {
      db: new Kysely<Database>({
        dialect: new PostgresDialect({ pool: () => openPool({ ...target, url }) }),
      }),
      description: `postgres://${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`,
      embedded: false,
    };
  }
  const directory = resolve(target.dataDir, 'pgdata');
  mkdirSync(directory, { recursive: true });
  return {
    db: new Kysely<Database>({ dialect: embeddedDialect(directory) }),
    description: `embedded PGlite at ${directory}`,
    embedded: true,
  };
}

/** Opens an in-memory PGlite database: the repository tests run against it as well as real PostgreSQL. */
export function openMemoryDatabase(): Db {
  return new Kysely<Database>({ dialect: embeddedDialect(undefined) });
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
