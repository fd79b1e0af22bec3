// The migrator's failures, apart from the migrator: the CLI's error handler (cli/run-command.ts) names them, and
// importing them from migrator.ts would load kysely and every migration (about 280 modules) into each client
// command (docs/benchmarks.md, the front door).

export class MigrationFailedError extends Error {
  constructor(
    readonly migrationName: string | undefined,
    cause: unknown,
  ) {
    super(
      `migration ${migrationName ?? '(unknown)'} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = new.target.name;
  }
}

export class DatabaseBehindError extends Error {
  readonly code = 'database_behind';
  constructor(readonly pending: string[]) {
    super(
      `the database is behind by ${pending.length} migration(s) (${pending.join(', ')}): run \`meerkat migrate\``,
    );
    this.name = new.target.name;
  }
}
