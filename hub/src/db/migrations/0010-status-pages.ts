import { sql, type Kysely } from 'kysely';

// A project's public status page (docs/console.md): off until someone switches it on. The slug is the only way to
// reach it without a key, so it is random and unique, and it survives switching the page off and on again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('status_pages')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('status_pages_pkey', ['organization_id', 'project'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('status_pages').execute();
}
