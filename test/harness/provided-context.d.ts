// Values handed from test/harness/global-setup.ts to test files via inject().
// The import makes this file a module, so the block below augments vitest's types instead of replacing them.
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server-level URL (admin database); use createTestDatabase() for a per-file database. */
    databaseUrl: string;
    redisUrl: string;
    /** A database on that server migrated to the latest schema; createTestDatabase({ migrated: true }) clones it. */
    templateDatabase: string;
  }
}
