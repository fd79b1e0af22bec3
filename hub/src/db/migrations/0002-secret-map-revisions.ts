import { sql, type Kysely } from 'kysely';

// The gcp secrets backend keeps values in Secret Manager. This counter, bumped in the transaction that holds a
// map's advisory lock, tells every hub replica when its cached copy of that map is stale (ADR 0005).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('secret_map_revisions')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('secret_map_revisions_pk', ['organization_id', 'environment'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('secret_map_revisions').ifExists().execute();
}
