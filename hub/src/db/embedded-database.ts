// The embedded database of `meerkat dev` and of the repository tests: PGlite, PostgreSQL compiled to WebAssembly,
// in this process. What it costs is memory (docs/benchmarks.md "Memory"), so three things keep that down:
// - PGlite is loaded when the first query needs it, never in a process on a PostgreSQL URL (hub, scheduler, worker);
// - a new data folder is initialized (initdb) by a child process: PGlite runs initdb in a second WebAssembly
//   instance whose memory (about 500 MiB) the process would keep, as a WebAssembly memory never shrinks;
// - its shared buffers are 16 MB instead of PGlite's 160 MB: PGlite touches all of them at start, and a WebAssembly
//   memory never gives a page back, so each MB here is a MB of RSS for the life of the process; the pages it reads
//   beyond them stay in the operating system's page cache (docs/adr/0074-dev-memory.md: 32 MB held 57 MiB of the
//   WebAssembly memory at 2,000 monitors, 16 MB 40);
// - V8 compiles PGlite's WebAssembly with one background task, not one per core: the compilers' scratch memory
//   (V8's zones, up to 90 MiB at once with two tasks) is malloc'd on the tasks' threads, and glibc keeps each
//   thread's arena pages after it is freed (docs/adr/0076-dev-wasm-compilation.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import type { PGlite } from '@electric-sql/pglite';
import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type TransactionSettings,
} from 'kysely';

/** PostgreSQL settings of the embedded database, on top of PGlite's own start parameters. */
const EMBEDDED_SETTINGS = ['shared_buffers=16MB'];
/** initdb takes a few seconds; far more means it hangs. */
const INITDB_TIMEOUT_MS = 120_000;

/** Runs initdb in a child process when `directory` holds no database yet, so this process never pays for it. */
function initializeInChild(directory: string): void {
  if (existsSync(join(directory, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)});
const db = new PGlite(process.argv[1]);
await db.waitReady;
await db.close();`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, directory], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: INITDB_TIMEOUT_MS,
  });
  if (child.status !== 0)
    throw new Error(
      `initializing the embedded database in ${directory} failed (${child.error?.message ?? `exit ${child.status}`}): ` +
        child.stderr.trim().split('\n').slice(-5).join('\n'),
    );
}

/** V8's flag for its WebAssembly compilation tasks; read when a module is compiled, so it can be set at runtime. */
const WASM_COMPILATION_TASKS_FLAG = '--wasm-num-compilation-tasks';

/**
 * The flag that compiles WebAssembly with one background task, or undefined when the user set the count on node's
 * command line (V8 spells a flag with dashes or underscores; Node refuses this one in NODE_OPTIONS).
 */
export function wasmCompilationTasksFlag(execArgv: readonly string[]): string | undefined {
  const setByUser = execArgv.some((option) =>
    option.replaceAll('_', '-').startsWith(WASM_COMPILATION_TASKS_FLAG),
  );
  return setByUser ? undefined : `${WASM_COMPILATION_TASKS_FLAG}=1`;
}

async function startPGlite(directory: string | undefined): Promise<PGlite> {
  const flag = wasmCompilationTasksFlag(process.execArgv);
  if (flag !== undefined) v8.setFlagsFromString(flag);
  const { PGlite } = await import('@electric-sql/pglite');
  if (directory !== undefined) initializeInChild(directory);
  const startParams = [
    ...PGlite.defaultStartParams,
    ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting]),
  ];
  return PGlite.create(directory, { startParams });
}

/** kysely-pglite-dialect's driver, made once the first query needs it (Kysely calls `init` first). */
class EmbeddedDriver implements Driver {
  #driver: Driver | undefined;

  constructor(private readonly directory: string | undefined) {}

  async init(): Promise<void> {
    const [{ PGliteDialect }, pglite] = await Promise.all([
      import('kysely-pglite-dialect'),
      startPGlite(this.directory),
    ]);
    this.#driver = new PGliteDialect(pglite).createDriver();
    await this.#driver.init();
  }

  get #started(): Driver {
    if (this.#driver === undefined) throw new Error('the embedded database is not started');
    return this.#driver;
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#started.acquireConnection();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#started.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#started.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#started.rollbackTransaction(connection);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#started.releaseConnection(connection);
  }

  async destroy(): Promise<void> {
    await this.#driver?.destroy();
  }
}

/** The dialect of an embedded database in `directory`, or in memory when it is undefined. */
export function embeddedDialect(directory: string | undefined): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new EmbeddedDriver(directory),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
