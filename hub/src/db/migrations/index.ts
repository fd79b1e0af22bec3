import type { Migration } from 'kysely';
import * as initialSchema from './0001-initial-schema.js';

/**
 * Every migration, in order. Listed in code rather than read from a folder so the same list runs from the
 * TypeScript sources, the compiled image and PGlite alike. Names sort in the order they apply.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
};
